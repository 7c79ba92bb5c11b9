"""tieaware.metrics on torch CPU tensors against the same arrays in numpy (docs/integrations.md); not CI's: needs torch.

    PYTHONPATH=. python scripts/metrics_torch.py
"""
import time, numpy as np, torch
from tieaware import metrics
rng = np.random.default_rng(0)
B, N = 200, 300
scores = np.round(rng.random((B, N)) * 20) / 20
labels = rng.integers(0, 4, (B, N)) * (rng.random((B, N)) < 0.1)
mask = rng.random((B, N)) < 0.9
M = "nDCG@10 nDCG(dcg='exp-log2')@10 AP AP(norm=capped)@10 RR@10 P@5 R@100 F1@10 Success@5 DCG@10"
worst = 0.0
for dt_t, dt_n in ((torch.float16, np.float16), (torch.bfloat16, None), (torch.float32, np.float32), (torch.float64, np.float64)):
    st = torch.tensor(scores).to(dt_t)
    sn = st.to(torch.float32).numpy() if dt_n is None else scores.astype(dt_n)
    for order in ("expected", "worst", "best"):
        ours = metrics.evaluate(st, torch.tensor(labels), M, mask=torch.tensor(mask), order=order)
        ref = metrics.evaluate(sn, labels, M, mask=mask, order=order)
        for m in ours:
            assert isinstance(ours[m], torch.Tensor) and ours[m].dtype == torch.float64 and ours[m].device.type == "cpu"
            d = float(np.max(np.abs(ours[m].numpy() - ref[m])))
            worst = max(worst, d)
    print(dt_t, "max |torch - numpy| over", len(ours), "measures x 3 orders:", f"{worst:.1e}")
# cutoff measures only: torch's topk path (rows shorter than k, ties at the cut)
mask2 = mask.copy()
mask2[:20] = False
mask2[:20, :3] = True
cut_measures = "nDCG@10 RR@10 R@20 P@5 AP@10 Success@3"
gap = 0.0
for order in ("expected", "worst", "best"):
    a = metrics.evaluate(torch.tensor(scores).to(torch.float16), torch.tensor(labels), cut_measures, mask=torch.tensor(mask2), order=order)
    b = metrics.evaluate(scores.astype(np.float16), labels, cut_measures, mask=mask2, order=order)
    gap = max(gap, max(float(np.max(np.abs(a[m].numpy() - b[m]))) for m in a))
print(f"cutoff measures only (torch.topk), float16, 3 orders: max |torch - numpy| {gap:.1e}")
# bfloat16 ties: 1.0 and 1.0039 are one bfloat16 value
x = torch.tensor([[1.0, 1.0039, 0.5]])
print("bfloat16 tie:", metrics.reciprocal_rank(x.to(torch.bfloat16), [{0}]).tolist(), "float32:", metrics.reciprocal_rank(x, [{0}]).tolist())
big = torch.rand(10000, 1000).to(torch.float16)
lab = (torch.rand(10000, 1000) < 0.02).to(torch.int8)
t = time.process_time(); metrics.evaluate(big, lab, "nDCG@10 RR@10 R@100"); print(f"10,000 x 1,000 float16 torch CPU: {time.process_time() - t:.2f} s CPU")
t = time.process_time(); metrics.evaluate(big.numpy(), lab.numpy(), "nDCG@10 RR@10 R@100"); print(f"same arrays in numpy: {time.process_time() - t:.2f} s CPU")
print("torch", torch.__version__, "numpy", np.__version__)
