"""Print the NPY_DISABLE_CPU_FEATURES value that turns off numpy's AVX-512 code paths.

numpy's default sort (x86-simd-sort) is not stable, and which kernel runs
depends on the CPU, so a peer's tie order can differ between machines.  CI
runs the tie-order-sensitive tests a second time with AVX-512 disabled.

What numpy does with the variable (measured for 1.26, 2.0, 2.2, 2.3 and 2.4):
- A feature numpy dispatches but the CPU lacks is ignored without an error
  (numpy >= 1.25: not even a warning).  So the same value works on a CPU
  with AVX-512 and on one without.
- A name numpy does not dispatch gives an ImportWarning (hidden by default;
  an error under ``-W error``).  numpy 2.4 groups AVX-512 as X86_V4,
  AVX512_ICL and AVX512_SPR, so the older names AVX512F ... AVX512_CNL
  would be refused there and X86_V4 would stay on.
- A feature in numpy's *baseline* (a build that requires AVX-512) makes
  ``import numpy`` raise RuntimeError: it cannot be turned off at all.

So the value is the issue's list plus numpy 2.4's names, kept to what this
numpy dispatches outside its baseline.  It prints nothing when there is
nothing to turn off; .ci/run then says so and skips that run.
"""

from __future__ import annotations

try:  # numpy >= 2
    from numpy._core import _multiarray_umath as umath
except ImportError:  # numpy 1.x
    from numpy.core import _multiarray_umath as umath

WANTED = ("AVX512F", "AVX512CD", "AVX512_SKX", "AVX512_CLX", "AVX512_CNL", "AVX512_ICL", "X86_V4", "AVX512_SPR")

if __name__ == "__main__":
    dispatched = set(umath.__cpu_dispatch__) - set(umath.__cpu_baseline__)
    print(" ".join(name for name in WANTED if name in dispatched))
