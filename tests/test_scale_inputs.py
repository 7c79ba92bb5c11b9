"""Score matrices, Parquet/Arrow files and DataFrames evaluate exactly as the TREC files holding the same data.

Every input form is written out as the TREC run and qrels it stands for
(io/matrix.py's module docstring says which cells are judged) and compared
with ``tieaware.evaluate`` on those files: equal Fractions in exact mode, and
the float engine's values to 1e-12.  Bad input gets one TieawareError naming
the argument.
"""

from __future__ import annotations

import io
from fractions import Fraction

import numpy as np
import pytest

import tieaware
from tieaware import TieawareError
from tieaware.io.trec import parse_qrels, parse_run

MEASURES = "P@5 R@10 AP nDCG@10 nDCG RR@10 RBP(p=0.8)@20 ERR@10 F1@5"
CUT = "nDCG@10 RR@10 R@20 P@5"
OTHERS = "Judged@5 Bpref P(norm=retrieved)@10 AP(norm=capped)@5 nDCG(gain=binary)@10"


def _matrix(seed: int, rows: int = 12, cols: int = 30, dtype=np.float32, levels: int = 6):
    rng = np.random.default_rng(seed)
    scores = (rng.integers(0, levels, size=(rows, cols)) / 4).astype(dtype)  # heavy ties, exact in every float dtype
    grades = rng.choice(3, size=(rows, cols), p=[0.8, 0.15, 0.05])
    return scores, grades


def _trec(scores, grades=None, sets=None, mask=None):
    """The TREC run and qrels lines a matrix stands for."""
    run, qrels = [], []
    for i, row in enumerate(scores):
        for j, s in enumerate(row.tolist()):
            if mask is None or mask[i, j]:
                run.append(f"{i} Q0 {j} 0 {float(s)!r} m")
                if grades is not None:
                    qrels.append(f"{i} 0 {j} {int(grades[i, j])}")
        if sets is not None:
            qrels += [f"{i} 0 {j} 1" for j in sorted(sets[i])]
    return parse_qrels(qrels), parse_run(run)


@pytest.mark.parametrize("seed", range(4))
@pytest.mark.parametrize("measures", [MEASURES, CUT, OTHERS])
def test_matrix_of_grades_equals_trec_files(seed, measures):
    scores, grades = _matrix(seed)
    qrels, run = _trec(scores, grades)
    want = tieaware.evaluate(qrels, run, measures)
    got = tieaware.evaluate_matrix(scores, grades, measures, exact=True)
    assert got.queries == want.queries and got.per_query == want.per_query and got.mean == want.mean
    floats = tieaware.evaluate_matrix(scores, grades, measures)
    for q in want.queries:
        for m, v in want.per_query[q].items():
            assert floats.per_query[q][m] == pytest.approx(float(v), abs=1e-12)


@pytest.mark.parametrize("seed", range(3))
def test_matrix_of_label_sets_and_mask_equals_trec_files(seed):
    scores, _ = _matrix(seed, dtype=np.float64)
    rng = np.random.default_rng(100 + seed)
    mask = rng.random(scores.shape) < 0.8
    mask[3] = False  # a row of padding only
    sets = [set(rng.choice(scores.shape[1], size=int(rng.integers(0, 4)), replace=False).tolist()) for _ in scores]
    sets[5] = set()  # a row without positives: not evaluated
    qrels, run = _trec(scores, sets=sets, mask=mask)
    for measures in (MEASURES, CUT, OTHERS):
        want = tieaware.evaluate(qrels, run, measures)
        got = tieaware.evaluate_matrix(scores, sets, measures, mask=mask, exact=True)
        assert got.per_query == want.per_query and got.mean == want.mean
        assert got.skipped_run == want.skipped_run and got.skipped_qrels == want.skipped_qrels


def test_float32_ties_stay_ties():
    # 0.1 and 0.1 + 2**-30 are one float32 (a tie) but two doubles
    a = np.float32(0.1)
    scores = np.array([[a, np.float32(0.1 + 2**-30), 0.0]], dtype=np.float32)
    ev = tieaware.evaluate_matrix(scores, [{1}], "RR", exact=True)
    assert ev.per_query["0"]["RR"] == Fraction(3, 4)


def test_matrix_spread_and_to_pandas():
    scores = np.array([[1.0, 1.0, 0.0], [3.0, 2.0, 1.0]])
    ev = tieaware.evaluate_matrix(scores, [{0}, {2}], "P@1 RR", exact=True, spread=True)
    s = ev.per_query_spread["0"]["P@1"]
    assert (s.worst, s.best, s.variance) == (0, 1, Fraction(1, 4))
    assert ev.spread["P@1"].max_mean == Fraction(1, 2)
    frame = ev.to_pandas()
    assert list(frame.index) == ["0", "1"] and frame.loc["0", "P@1 variance"] == Fraction(1, 4)


def test_matrix_reads_dlpack_and_array_objects_without_their_library():
    class OnlyDLPack:
        def __init__(self, a):
            self.a = a

        def __dlpack__(self, *args, **kwargs):
            return self.a.__dlpack__(*args, **kwargs)

        def __dlpack_device__(self):
            return self.a.__dlpack_device__()

    scores, grades = _matrix(7)
    want = tieaware.evaluate_matrix(scores, grades, CUT, exact=True)
    assert tieaware.evaluate_matrix(OnlyDLPack(scores), grades, CUT, exact=True).per_query == want.per_query


@pytest.mark.parametrize(
    "scores, labels, mask, argument",
    [
        (np.array([[0.5, np.nan]]), [{0}], None, "scores"),
        (np.array([[0.5, np.inf]]), [{0}], None, "scores"),
        (np.array([0.5, 0.2]), [{0}], None, "scores"),
        (np.ones((2, 3)), np.ones((2, 2)), None, "labels"),
        (np.ones((2, 3)), [{0}], None, "labels"),
        (np.ones((2, 3)), [{0}, {3}], None, "labels[1]"),
        (np.ones((2, 3)), [{0}, {-1}], None, "labels[1]"),
        (np.ones((2, 3)), [{0}, {1}], np.ones((3, 2), dtype=bool), "mask"),
        (np.ones((2, 3)), np.array([[1, 0, np.nan], [0, 0, 0]]), None, "labels"),
        (np.ones((2, 3)), np.array([[1, 0, -1], [0, 0, 0]]), None, "labels"),
        (np.array([["a", "b"]]), [{0}], None, "scores"),
    ],
)
def test_bad_matrix_input_names_the_argument(scores, labels, mask, argument):
    with pytest.raises(TieawareError) as err:
        tieaware.evaluate_matrix(scores, labels, "P@1", mask=mask)
    assert str(err.value).startswith(argument + " ")


# -- Parquet, Arrow, DataFrames --------------------------------------------------

QRELS = "q1 0 a 2\nq1 0 b 0\nq1 0 z 1\nq2 0 c 1\nq3 0 a 1\n"
RUN = "q1 Q0 a 1 0.5 r\nq1 Q0 b 2 0.5 r\nq1 Q0 c 3 0.25 r\nq2 Q0 c 1 3 r\nq2 Q0 d 2 3 r\nq4 Q0 a 1 1 r\n"


def _frames():
    pd = pytest.importorskip("pandas")
    qrels = pd.DataFrame([line.split() for line in QRELS.splitlines()], columns=["query_id", "iteration", "doc_id", "relevance"])
    qrels["relevance"] = qrels["relevance"].astype(int)
    run = pd.DataFrame([line.split() for line in RUN.splitlines()], columns=["query_id", "q0", "doc_id", "rank", "score", "tag"])
    run["score"] = run["score"].astype(float)
    return qrels, run


def _want(exact=True):
    return tieaware.evaluate(parse_qrels(QRELS.splitlines()), parse_run(RUN.splitlines()), MEASURES, exact=exact)


def _same(got, want):
    assert got.queries == want.queries and got.per_query == want.per_query and got.mean == want.mean
    assert got.skipped_run == want.skipped_run and got.skipped_qrels == want.skipped_qrels


def test_parquet_and_feather_files_equal_trec_files(tmp_path):
    pa = pytest.importorskip("pyarrow")
    import pyarrow.feather as feather
    import pyarrow.parquet as pq

    qrels, run = _frames()
    for exact in (True, False):
        want = _want(exact)
        pq.write_table(pa.Table.from_pandas(qrels), tmp_path / "q.parquet")
        pq.write_table(pa.Table.from_pandas(run.rename(columns={"query_id": "qid", "doc_id": "docno"})), tmp_path / "r.parquet")
        _same(tieaware.evaluate(tmp_path / "q.parquet", tmp_path / "r.parquet", MEASURES, exact=exact), want)
        feather.write_feather(pa.Table.from_pandas(run), tmp_path / "r.arrow")
        _same(tieaware.evaluate(tmp_path / "q.parquet", str(tmp_path / "r.arrow"), MEASURES, exact=exact), want)


def test_polars_and_pyarrow_frames_equal_trec_files():
    pa = pytest.importorskip("pyarrow")
    qrels, run = _frames()
    _same(tieaware.evaluate(pa.Table.from_pandas(qrels), pa.Table.from_pandas(run), MEASURES), _want())
    pl = pytest.importorskip("polars")
    _same(tieaware.evaluate(pl.from_pandas(qrels), pl.from_pandas(run), MEASURES), _want())
    _same(tieaware.evaluate(pl.from_pandas(qrels), run, MEASURES), _want())  # mixed forms


def test_text_and_integer_columns_are_read_exactly():
    pa = pytest.importorskip("pyarrow")
    qrels, run = _frames()
    text = run.assign(score=[line.split()[4] for line in RUN.splitlines()])  # "0.5", "3": read as TREC text
    _same(tieaware.evaluate(pa.Table.from_pandas(qrels), pa.Table.from_pandas(text), MEASURES), _want())
    ints = pa.table({"qid": [1, 1], "docno": [10, 11], "score": [2**60, 2**60 + 1]})  # beyond 2**53: read as text
    ev = tieaware.evaluate(pa.table({"qid": [1], "docno": [11], "label": [1]}), ints, "RR")
    assert ev.per_query["1"]["RR"] == 1


@pytest.mark.parametrize("dtype", ["int8", "int16", "int32", "int64", "uint8", "uint32", "uint64"])
def test_integer_ids_read_as_their_decimal_text(dtype):
    # integer ids become str(int) in numpy (io.parquet.decimal_text): a short range through a table of
    # every text, a wide one digit by digit, and the extremes of the dtype
    pa = pytest.importorskip("pyarrow")
    from tieaware.io.parquet import decimal_text

    info = np.iinfo(dtype)
    rng = np.random.default_rng(7)
    for values in (np.arange(max(int(info.min), -300), min(int(info.max), 300) + 1).astype(dtype),
                   rng.integers(info.min, info.max, size=2000, dtype=dtype, endpoint=True),
                   np.array([info.min, info.max, 0, 9, 10, 99, 100], dtype=dtype)):
        want = [str(x).encode() for x in values.tolist()]
        assert decimal_text(values).tolist() == want
        table = pa.table({"qid": values, "docno": values, "score": np.zeros(len(values))})
        from tieaware.io.parquet import table as as_table

        got = as_table(table, "run")
        assert got.qid.tolist() == want and got.docno.tolist() == want


def test_bad_columnar_input(tmp_path):
    pa = pytest.importorskip("pyarrow")
    import pyarrow.parquet as pq

    qrels, run = _frames()
    pq.write_table(pa.Table.from_pandas(run.drop(columns=["score"])), tmp_path / "r.parquet")
    pq.write_table(pa.Table.from_pandas(qrels), tmp_path / "q.parquet")
    with pytest.raises(TieawareError, match=r"r\.parquet .*has no 'score' column"):
        tieaware.evaluate(tmp_path / "q.parquet", tmp_path / "r.parquet", "AP")
    both = pa.Table.from_pandas(run.assign(qid=run["query_id"]))
    with pytest.raises(TieawareError, match="both 'qid' and 'query_id'"):
        tieaware.evaluate(pa.Table.from_pandas(qrels), both, "AP")
    nan = pa.table({"qid": ["q1", "q1"], "docno": ["a", "b"], "score": pa.array([0.5, float("nan")], from_pandas=False)})
    with pytest.raises(TieawareError, match="row 2: score must be a finite number, got nan"):
        tieaware.evaluate(pa.Table.from_pandas(qrels), nan, "AP")
    with pytest.raises(TieawareError, match="row 2: column 'score' is empty"):  # pandas' NaN is Arrow's null
        tieaware.evaluate(pa.Table.from_pandas(qrels), pa.Table.from_pandas(run.assign(score=[0.5, np.nan, 1, 1, 1, 1])), "AP")
    (tmp_path / "broken.parquet").write_bytes(b"not parquet")
    with pytest.raises(TieawareError, match="broken.parquet: cannot read it as Parquet"):
        tieaware.evaluate(tmp_path / "q.parquet", tmp_path / "broken.parquet", "AP")
