"""tieaware.metrics on JAX arrays (CPU) and on numpy bfloat16 (ml_dtypes) against numpy (docs/integrations.md); not CI's: needs jax.

    PYTHONPATH=. python scripts/metrics_jax.py
"""
import jax

jax.config.update("jax_enable_x64", True)  # float64 results, as numpy's
import jax.numpy as jnp
import ml_dtypes
import numpy as np

from tieaware import metrics

rng = np.random.default_rng(0)
B, N = 100, 200
scores = np.round(rng.random((B, N)) * 20) / 20
labels = rng.integers(0, 4, (B, N)) * (rng.random((B, N)) < 0.1)
mask = rng.random((B, N)) < 0.9
M = "nDCG@10 nDCG(dcg='exp-log2')@10 AP AP(norm=capped)@10 RR@10 P@5 R@100 F1@10 Success@5 DCG@10"
worst = 0.0
for dt in (jnp.float16, jnp.bfloat16, jnp.float32, jnp.float64):
    sj = jnp.asarray(scores).astype(dt)
    sn = np.asarray(sj.astype(jnp.float32))
    for order in ("expected", "worst", "best"):
        ours = metrics.evaluate(sj, jnp.asarray(labels), M, mask=jnp.asarray(mask), order=order)
        ref = metrics.evaluate(sn, labels, M, mask=mask, order=order)
        for m in ours:
            assert isinstance(ours[m], jax.Array) and ours[m].dtype == jnp.float64, (m, type(ours[m]))
            worst = max(worst, float(np.max(np.abs(np.asarray(ours[m]) - ref[m]))))
    print(dt.__name__ if hasattr(dt, "__name__") else dt, f"max |jax - numpy| over 10 measures x 3 orders: {worst:.1e}")
b16 = scores.astype(ml_dtypes.bfloat16)
got = metrics.evaluate(b16, labels, M, mask=mask)
ref = metrics.evaluate(b16.astype(np.float32), labels, M, mask=mask)
print("numpy bfloat16 (ml_dtypes) equals its float32 widening:", all(np.array_equal(got[m], ref[m]) for m in got))
print("jax", jax.__version__, "ml_dtypes", ml_dtypes.__version__, "numpy", np.__version__)
