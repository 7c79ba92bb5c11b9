"""Every measure name tieaware accepts reads back from its printed form: parse(str(m)) == m, and str(parse(s)) is canonical.

The printed name is what users see as the key of a result (``evaluate``'s
dicts, the table, JSON and trec output), so it must name the measure that
was computed, parameter values included: ``RBP(p=0.04)`` prints as
``RBP(p=0.04)`` (as ir_measures writes it), not ``RBP(p=1/25)``, and a p
with 40 decimals is printed with all 40, not rounded to 28 as
``decimal.Decimal`` division would.
"""

from __future__ import annotations

import contextlib
import io
import json
import re
from fractions import Fraction

import pytest
from hypothesis import given
from hypothesis import strategies as st

import tieaware
from tieaware import TieawareError
from tieaware.cli import main
from tieaware.model.names import MEASURES, NOREL, NORMS, Measure, parse, parse_list

_ALIASES = {"AP": ["MAP", "map", "AP", "ap"], "RR": ["MRR", "recip_rank", "rr", "RR"], "nDCG": ["NDCG", "ndcg", "nDCG"], "R": ["Recall", "recall", "R", "r"]}
_TREC = {"P": "P_{k}", "R": "recall_{k}", "AP": "map_cut_{k}", "nDCG": "ndcg_cut_{k}", "Success": "success_{k}"}
_NO_CUTOFF = {
    "Rprec", "Bpref", "NumQ", "NumRet", "NumRelRet", "NumRel", "NumNonRelJudgedRet", "SetP", "SetR", "SetF", "SetAP",
    "Utility", "IPrecAvg", "infAP", "BinG", "G", "nDCGRel", "RnDCG", "GMAP", "GMBpref",
}  # fmt: skip
#: trec_eval's parameters kept as the text given (a number, levels, rel_level=gain pairs)
_TEXTS = {
    "beta": ["1", "0.5", "2", "1/3"], "a": ["2", "-1", "0.5"], "b": ["-1", "3"], "c": ["0", "-2.5"], "d": ["0", "1"],
    "levels": ["0.2;0.5;0.8", "0.5"], "gains": ["1=3;2=9", "0=0;1=1;2=3", "1=3.5"],
}  # fmt: skip

#: exact values -> ways of writing them that parse() reads
_TERMINATING = st.builds(lambda n, a, b: Fraction(n, 2**a * 5**b), st.integers(1, 10**6), st.integers(0, 70), st.integers(0, 70))
_ANY = st.fractions(min_value=Fraction(1, 10**9), max_value=10**6).filter(lambda f: f > 0)
_PROBABILITY = st.one_of(
    _TERMINATING.map(lambda f: f - int(f)), _ANY.map(lambda f: f - int(f)), st.integers(1, 10**40).map(lambda n: Fraction(n, 10**40))
).filter(lambda f: 0 < f < 1)


def _decimal(f: Fraction) -> str | None:
    """f as a plain decimal text when it terminates."""
    d, places = f.denominator, 0
    while d % 10 == 0:
        d, places = d // 10, places + 1
    while d % 2 == 0 or d % 5 == 0:
        d, places = (d // 2 if d % 2 == 0 else d // 5), places + 1
    if d != 1:
        return None
    digits = str(f.numerator * 10**places // f.denominator).rjust(places + 1, "0")
    return digits[:-places] + "." + digits[-places:] if places else digits


@st.composite
def value_texts(draw, values) -> tuple[Fraction, str]:
    """(value, a text parse() reads as value): p/q, plain decimal, exponent form, padded with zeros or spaces."""
    f = draw(values)
    forms = [f"{f.numerator}/{f.denominator}"]
    plain = _decimal(f)
    if plain is not None:
        forms += [plain, plain + ("0" if "." in plain else ".0"), f"{f.numerator * 10**40 // f.denominator}e-40" if (f * 10**40).denominator == 1 else plain]
    if f.denominator == 1:
        forms.append(str(f.numerator))
    text = draw(st.sampled_from(forms))
    return f, draw(st.sampled_from(["", " "])) + text


@st.composite
def measure_texts(draw) -> tuple[str, str, dict]:
    """(text, canonical name, parameters) for any measure parse() accepts, in any accepted spelling."""
    name = draw(st.sampled_from(sorted(MEASURES)))
    needs_k, allowed = MEASURES[name]
    k = draw(st.integers(1, 1000)) if needs_k or (name not in _NO_CUTOFF and draw(st.booleans())) else None
    params: dict = {}
    written = []
    if name == "IPrec":  # @ is a recall level (ir_measures' IPrec@0.1): a parameter, no cutoff
        params["recall"], level = draw(value_texts(st.fractions(0, 1)))
        k = None
    for key in sorted(allowed):
        if not draw(st.booleans()):
            continue
        if key == "rel" and name in ("nDCG", "DCG") and params.get("gain") != "binary":
            continue  # nDCG's rel is the threshold of the binary gain only
        if key == "gain" and params.get("dcg", "log2") != "log2":
            continue  # binary gain and the exp2 gain exclude each other
        if key == "ideal" and (params.get("gain") != "binary" or k is None):
            continue  # ideal=k: binary gain and a cutoff only (rectools' NDCG)
        if name == "nDCG" and (key == "gains" and params.keys() & {"dcg", "gain", "rel", "norel", "ideal"} or key != "gains" and "gains" in params):
            continue  # trec_eval's gains stand alone
        if name == "Rprec" and {key} | params.keys() >= {"mult", "norel"}:
            continue  # norel without mult only
        if key == "rel":
            value, text = draw(value_texts(_ANY))
        elif key == "norm":
            choices = [v for v in NORMS[name][1:] if k is not None or v not in ("capped", "k")]
            value = text = draw(st.sampled_from(choices))  # the default (k, R) is not written back
        elif key == "norel":
            value = text = draw(st.sampled_from(NOREL[1:]))
        elif key == "gain":
            value = text = "binary"
        elif key == "ideal":
            value = text = "k"
        elif key == "multirel":
            value = text = "nan"
        elif key == "relative":
            value, text = True, draw(st.sampled_from(["True", "true", "1"]))
        elif key == "mult":
            value, text = draw(value_texts(_ANY))
        elif key == "docs":
            value = draw(st.integers(0, 10**6))
            text = str(value)
        elif key in _TEXTS:
            value = text = draw(st.sampled_from(_TEXTS[key]))
        elif key == "g_max":
            value = draw(st.integers(1, 20))
            text = str(value)
        elif key == "p":
            value, text = draw(value_texts(_PROBABILITY))
        elif key == "dcg":
            value = text = draw(st.sampled_from(["log2", "exp-log2"]))
            text = draw(st.sampled_from(["{}", "'{}'", '"{}"'])).format(text)
        else:
            value = text = draw(st.sampled_from({"variant": ["w", "a", "b"], "bound": ["min", "max", "ext", "res"]}[key]))
            text = draw(st.sampled_from(["{}", "'{}'"])).format(text)
        params[key] = value
        written.append(f"{key}={text}")
    written = draw(st.permutations(written))
    spelling = draw(st.sampled_from(_ALIASES.get(name, [name]) + [name.lower(), name.upper()]))
    if not params and k is not None and name in _TREC and draw(st.booleans()):
        return _TREC[name].format(k=k), name, {"k": k}
    at = f"@{level}" if name == "IPrec" else f"@{k}" if k is not None else ""
    text = spelling + (f"({','.join(written)})" if written else "") + at
    return text, name, {**params, "k": k}


@given(measure_texts())
def test_every_accepted_name_reads_back_from_its_printed_form(case):
    text, name, params = case
    m = parse(text)
    assert (m.name, m.k) == (name, params.pop("k"))
    assert dict(m.params) == params  # the values written, exactly
    printed = str(m)
    assert parse(printed) == m
    assert str(parse(printed)) == printed  # canonical: printing is idempotent
    # canonical: the canonical name, sorted parameters, no spaces, a plain cutoff
    assert printed.startswith(name) and " " not in printed
    keys = re.findall(r"(\w+)=", printed.split("(", 1)[1] if "(" in printed else "")
    keys = [key for key in keys if key in params]  # gains=1=3;2=9 holds '=' in its value
    assert keys == sorted(keys) == sorted(set(params) - {"recall"})


@given(_PROBABILITY)
def test_a_terminating_p_prints_as_a_decimal_and_any_other_as_p_over_q(p):
    printed = str(parse(f"RBP(p={p.numerator}/{p.denominator})"))
    value = printed[len("RBP(p=") : -1]
    assert Fraction(value) == p
    assert ("/" in value) == (_decimal(p) is None)


@pytest.mark.parametrize(
    "text, printed",
    [
        ("RBP(p=0.04)", "RBP(p=0.04)"),
        ("RBP(p=1/25)", "RBP(p=0.04)"),
        ("rbp(p=4e-2)@10", "RBP(p=0.04)@10"),
        ("RBP(p=0.8)", "RBP(p=0.8)"),
        ("RBP(p=1/3)", "RBP(p=1/3)"),
        ("RBP(rel=2,p=0.95)", "RBP(p=0.95,rel=2)"),
        ("RBP(p=1/1152921504606846976)", "RBP(p=8.67361737988403547205962240695953369140625e-19)"),
        ("RBP(p=0.1234567890123456789012345678901)", "RBP(p=0.1234567890123456789012345678901)"),
        ("RBP(p=1e-7)", "RBP(p=1e-7)"),
        ("RBP(p=0.000001)", "RBP(p=0.000001)"),
        ("P(rel=2.50)@5", "P(rel=2.5)@5"),
        ("P(rel=4/2)@5", "P(rel=2)@5"),
        ("P_5", "P@5"),
        ("recall_10", "R@10"),
        ("map_cut_100", "AP@100"),
        ("ndcg_cut_10", "nDCG@10"),
        ("success_1", "Success@1"),
        ("map", "AP"),
        ("recip_rank", "RR"),
        ("ndcg", "nDCG"),
        ("nDCG(dcg=exp-log2)@10", "nDCG(dcg='exp-log2')@10"),
        ("nDCG(dcg='log2')", "nDCG(dcg=log2)"),
        ("RBO(variant=a,p=0.9,bound=res)", "RBO(bound=res,p=0.9,variant=a)"),
        ("judged@10", "Judged@10"),
        ("err@20", "ERR@20"),
        ("bpref", "Bpref"),
        ("rprec", "Rprec"),
        ("AP(norm=capped)@5", "AP(norm=capped)@5"),
        ("P(norm=k,norel=0)@5", "P@5"),
        ("ndcg(rel=2,gain=binary)@5", "nDCG(gain=binary,rel=2)@5"),
        ("ERR(g_max=4)@20", "ERR(g_max=4)@20"),
        ("ERR(g_max=1)@20", "ERR(g_max=1)@20"),  # the smallest grade scale (binary labels): accepted
        ("RR(norel='nan')", "RR(norel=nan)"),
        ("iprec_at_recall_0.10", "IPrec@0.1"),
        ("Rprec_mult_0.20", "Rprec(mult=0.2)"),
        ("relative_P_5", "RelP@5"),
        ("set_relative_P", "SetP(relative=True)"),
        ("11pt_avg", "IPrecAvg"),
        ("gm_map", "GMAP"),
        ("num_rel_ret", "NumRelRet"),
        ("set_F", "SetF"),
        ("SetF(beta=0.5)", "SetF(beta=0.5)"),
        ("Utility(a=2,b=-1,c=0,d=0)", "Utility(a=2,b='-1',c=0,d=0)"),
        ("nDCG(gains={1:3,2:9})", "nDCG(gains=1=3;2=9)"),
    ],
)
def test_printed_forms(text, printed):
    assert str(parse(text)) == printed
    assert parse(printed) == parse(text)


def test_every_measure_and_parameter_is_covered():
    # the strategy above draws from MEASURES itself; this pins the table it draws from
    # (docs/conventions.md, Measures: which names need a cutoff, which parameters each takes)
    assert MEASURES == {
        "P": (True, {"rel", "norm", "norel"}), "R": (True, {"rel", "norel"}), "F1": (True, {"rel", "norel"}),
        "AP": (False, {"rel", "norm", "norel"}), "RR": (False, {"rel", "norel"}),
        "nDCG": (False, {"dcg", "gain", "rel", "norel", "gains", "ideal"}),
        "DCG": (False, {"dcg", "gain", "rel"}), "RBP": (False, {"p", "rel", "norel"}), "ERR": (False, {"g_max", "norel"}),
        "Rprec": (False, {"rel", "norel", "mult"}), "Success": (True, {"rel", "norel", "multirel"}), "Judged": (False, set()),
        "Bpref": (False, {"rel", "norel"}), "RBO": (False, {"p", "variant", "bound"}),
        # trec_eval's other families (docs/eval.md, trec_eval's families)
        "NumQ": (False, set()), "NumRet": (False, {"rel"}), "NumRelRet": (False, {"rel"}), "NumRel": (False, {"rel"}),
        "NumNonRelJudgedRet": (False, {"rel"}), "SetP": (False, {"rel", "relative"}), "SetR": (False, {"rel"}),
        "SetF": (False, {"rel", "beta"}), "SetAP": (False, {"rel"}), "Utility": (False, {"rel", "a", "b", "c", "d", "docs"}),
        "RelP": (True, {"rel"}), "IPrec": (True, {"rel"}), "IPrecAvg": (False, {"rel", "levels"}), "infAP": (False, {"rel"}),
        "BinG": (False, {"rel"}), "G": (False, {"gains"}), "nDCGRel": (False, {"gains"}), "RnDCG": (False, {"rel", "gains"}),
        "GMAP": (False, {"rel"}), "GMBpref": (False, {"rel"}),
    }  # fmt: skip
    for name, (needs_k, _) in MEASURES.items():
        if name == "IPrec":
            assert str(parse("IPrec@0.25")) == "IPrec@0.25"  # @ is the recall level
            continue
        if not needs_k:
            assert str(parse(name)) == name  # no cutoff needed
        if name not in _NO_CUTOFF:
            assert str(parse(f"{name}@3")) == f"{name}@3"


@pytest.mark.parametrize("text", ["P@5@6", "(rel=2)", "P(rel=2", "P(rel=(2))@5", "@5", "P@", "9P@5", ""])
def test_a_name_not_of_the_form_is_refused(text):
    with pytest.raises(TieawareError, match="measure is not of the form"):
        parse(text)


def test_rbps_default_p_is_ir_measures():
    # ir_measures' RBP defaults to p=0.8 (its measure docs, RBP(p=0.8)): every layer and engine reads RBP_P
    from tieaware.model.names import RBP_P

    assert RBP_P == Fraction(4, 5) and parse("RBP").rbp_p == Fraction(4, 5) and parse("RBP(p=0.5)").rbp_p == Fraction(1, 2)
    # a and b tied at ranks 1-2 (a relevant), c relevant at 3: (1 - p)((1 + p)/2 + p²) = 77/250 at p = 4/5
    for exact in (True, False):
        mean = tieaware.evaluate(QRELS, RUN, ["RBP", "RBP(p=0.8)"], exact=exact).mean
        assert mean["RBP"] == mean["RBP(p=0.8)"] == pytest.approx(Fraction(77, 250), abs=0 if exact else 1e-15)


def test_show_keeps_the_sign():
    # parse() only makes positive values, but a Measure built by hand prints its own
    from tieaware.model.names import _show

    assert [_show(Fraction(v)) for v in ("-1/4", "-3", "-1/3", "-1e-9")] == ["-0.25", "-3", "-1/3", "-1e-9"]
    assert str(Measure("P", 5, (("rel", Fraction(-1, 4)),))) == "P(rel=-0.25)@5"


def test_a_parameter_given_twice_is_refused():
    # dict(params) kept the last one silently: RBP(p=0.5,p=0.9) computed p=0.9
    with pytest.raises(TieawareError, match=r"measure gives p twice, got 'RBP\(p=0.5,p=0.9\)'"):
        parse("RBP(p=0.5,p=0.9)")


def test_parse_list_keeps_each_printed_name():
    names = "RBP(p=0.04) P(rel=2)@5 nDCG(dcg='exp-log2')@10 RBP(p=1/3)@5"
    assert [str(m) for m in parse_list(names)] == ["RBP(p=0.04)", "P(rel=2)@5", "nDCG(dcg='exp-log2')@10", "RBP(p=1/3)@5"]
    assert all(isinstance(m, Measure) for m in parse_list(names))


# -- result keys ----------------------------------------------------------------------------

QRELS = {"q": {"a": 1, "b": 0, "c": 2}}
RUN = {"q": {"a": 0.5, "b": 0.5, "c": 0.25}}
LONG_P = "RBP(p=8.67361737988403547205962240695953369140625e-19)"


def test_result_keys_are_the_printed_names():
    result = tieaware.evaluate(QRELS, RUN, ["RBP(p=1/25)", "RBP(p=0.8)@2", "RBP(p=1/2**60)".replace("1/2**60", "1/1152921504606846976")])
    assert list(result.mean) == ["RBP(p=0.04)", "RBP(p=0.8)@2", LONG_P]
    assert list(result.per_query["q"]) == list(result.mean)
    # the key names the p that was used: RBP = (1 - p) Σ p^(i-1) rel_i, a and b tied at ranks 1-2
    p = Fraction(1, 25)
    assert result.mean["RBP(p=0.04)"] == (1 - p) * (Fraction(1, 2) * (1 + p) + p**2)


def _cli(tmp_path, *args: str) -> str:
    qrels, run = tmp_path / "qrels", tmp_path / "run"
    qrels.write_text("q 0 a 1\nq 0 b 0\nq 0 c 2\n")
    run.write_text("q Q0 a 1 0.5 r\nq Q0 b 2 0.5 r\nq Q0 c 3 0.25 r\n")
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        assert main(["eval", str(qrels), str(run), *args]) == 0
    return out.getvalue()


@pytest.mark.parametrize("mode", [(), ("--float",)], ids=["exact", "float"])
def test_cli_keys_in_every_format(tmp_path, mode):
    measures = ["-m", "RBP(p=1/25)", "-m", "RBP(p=1/1152921504606846976)"]
    table = _cli(tmp_path, *measures, *mode)
    assert re.search(r"^RBP\(p=0\.04\) ", table, re.M) and LONG_P in table and "1/25" not in table
    data = json.loads(_cli(tmp_path, *measures, "--format", "json", *mode))
    assert "RBP(p=0.04)" in json.dumps(data) and LONG_P in json.dumps(data) and "1/25" not in json.dumps(data)
    trec = _cli(tmp_path, *measures, "--format", "trec", *mode)
    assert [line.split("\t")[0].strip() for line in trec.splitlines()] == ["RBP(p=0.04)", LONG_P]


@pytest.mark.parametrize(
    "text, params, printed",
    [
        ("AP@5", {"norm": "capped"}, "AP(norm=capped)@5"),  # a parameter added, the cutoff kept
        ("AP(norm=hits)@5", {"norm": None}, "AP@5"),  # None removes it: no empty "()"
        ("nDCG", {"gain": "binary"}, "nDCG(gain=binary)"),  # no cutoff: no "@"
        ("RBP(p=0.5)@10", {"p": Fraction(1, 25)}, "RBP(p=0.04)@10"),  # replaced, printed as ir_measures writes it
        ("nDCG(gain=binary)@10", {"rel": 2}, "nDCG(gain=binary,rel=2)@10"),  # parameters in sorted order
        ("RBP(p=0.5)", {"p": None}, "RBP"),
    ],
)
def test_replace_sets_and_removes_parameters(text, params, printed):
    # the measure names are ir_measures' syntax: Name(param=value,...)@k
    measure = parse(text).replace(**params)
    assert str(measure) == printed
    assert measure == parse(printed)
