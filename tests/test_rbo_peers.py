"""Bare RBO against PyPI ``rbo`` (Changyao Chen's package, Webber et al.'s RBO_EXT).

On untied rankings all three variants are bare RBO, so each must match
``rbo.RankingSimilarity(S, L).rbo_ext(p)`` to float precision, for lists of
different lengths and partial overlap.
"""

import pytest
from hypothesis import given
from hypothesis import strategies as st

from tieaware.model.exact import to_float
from tieaware.fast.rank_biased_overlap import rbo as fast_rbo
from tieaware.reference.rank_biased_overlap import rbo as reference_rbo
from tieaware.strategies import untied_rbo_pairs

peer = pytest.importorskip("rbo")


@pytest.mark.peers
@given(untied_rbo_pairs(max_items=15), st.sampled_from(["0.5", "0.8", "0.9", "0.95"]), st.sampled_from("wab"))
def test_pypi_rbo_ext_on_untied_rankings(pair, p, variant):
    S, L = pair
    theirs = peer.RankingSimilarity(S, L).rbo_ext(p=float(p))
    assert to_float(fast_rbo(S, L, p, variant=variant)) == pytest.approx(theirs, abs=1e-9)
    assert fast_rbo(S, L, p, variant=variant, exact=False) == pytest.approx(theirs, abs=1e-9)


@pytest.mark.peers
def test_pypi_rbo_on_the_uneven_case_dlukes_gets_wrong():
    # dlukes/rbo returns 0.88 here (docs/rbo.md); PyPI rbo and we return 1.
    assert peer.RankingSimilarity(["a"], ["a", "b"]).rbo_ext(p=0.9) == pytest.approx(1.0, abs=1e-12)
    assert fast_rbo(["a"], ["a", "b"], "0.9") == reference_rbo(["a"], ["a", "b"], "0.9") == 1
