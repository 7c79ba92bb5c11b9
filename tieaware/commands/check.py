"""``tieaware check MODULE:FUNCTION MEASURE``: does your code compute the tie-aware value?

The command form of :func:`tieaware.check.implementation`.  It imports
FUNCTION from MODULE (a dotted module name, or a path to a .py file), runs it
on exhaustive small tied inputs, near-ties, score and label classes, large
tie groups and hypothesis-generated inputs, and compares each answer with the
exact tie-aware reference.  It prints the verdict, the smallest
counterexample and its cause, and the profile: the precision of the results,
the convention the code computes, its tie rule and every other class of
failure found.  ``--format json`` prints the same as one JSON object.

Exit status: 0 when the code conforms, 1 when it does not (a bug, or another
convention than the measure named), 2 on bad input.
"""

from __future__ import annotations

import argparse
import json
import importlib
import importlib.util
import os
import sys
from typing import Any, Callable, Optional

from tieaware.check import adapters, implementation, spread, worker
from tieaware.check.domain import LABEL_KINDS, SCORE_KINDS
from tieaware.check.implementation import MAX_SIZE
from tieaware.check.spread_check import STATISTICS
from tieaware.model.errors import bad

__all__ = ["add_parser", "run", "load", "ADAPTERS"]

ADAPTERS = ("scores", "qrels-run", "arrays", "vectors", "tensors", "dataframes", "csr", "ids", "command", "rbo-untied")
FORMATS = ("text", "json")

_DESCRIPTION = """\
Check an implementation of an IR measure against the exact tie-aware value:
the expected value over every ordering of documents with equal scores.

FUNCTION is called as FUNCTION(scores, labels) with parallel lists for one
query (float scores, equal scores tie; graded int labels) and must return the
measure's value.  Other calling conventions through --adapter:
  qrels-run  FUNCTION(qrels, run) with dicts {qid: {doc: label}}, {qid: {doc: score}}
             (ir_measures / pytrec_eval / ranx style), returning a number or {qid: number}
  arrays     FUNCTION(y_true, y_score) with 2-D arrays of one row (scikit-learn's ndcg_score)
  vectors    FUNCTION(scores, labels) with 1-D numpy arrays (--truth-first: FUNCTION(labels, scores),
             scikit-learn's average_precision_score)
  tensors    FUNCTION(tensor(scores), tensor(labels)), the constructor named by --tensor MODULE:FN
             (e.g. torch:tensor); a tensor result is read through .item(), __array__ or DLPack
  dataframes FUNCTION(recommendations, interactions) with pandas DataFrames (user_id, item_id,
             score, and --rank-column; interactions: the relevant items)
  csr        FUNCTION(y_true, y_pred) with one-row scipy csr matrices (recpack style)
  ids        FUNCTION(ranked_ids, relevant_ids): docnos by score (ties in input order), a set
  command    TARGET is a command line with {qrels} and {run} placeholders that
             prints the value (trec_eval style)
For RBO(p=..., variant=..., bound=...) FUNCTION is called as FUNCTION(S, L) with
two rankings (lists of items; a tie group is a list of items); --adapter
rbo-untied hands an untied FUNCTION(S, L) the items in their listed order."""

_EPILOG = """\
examples:
  tieaware check mymetrics:average_precision AP
  tieaware check ./mymetrics.py:ndcg nDCG@10 --max-examples 500
  tieaware check mylib:evaluate 'P(rel=2)@5' --adapter qrels-run
  tieaware check 'trec_eval -m map {qrels} {run}' AP --adapter command --pick map
  tieaware check myrbo:rbo_ext 'RBO(p=0.9, variant=a, bound=ext)' --adapter rbo-untied
  tieaware check mylib:p_at_5 P@5 --labels 0,1 --scores positive --format json
  tieaware check mylib:worst_ap AP --spread min

exit status: 0 conforms, 1 differs (a bug, or another convention; counterexample and
profile printed), 2 bad input.  See docs/check.md."""


def add_parser(subparsers: Any) -> argparse.ArgumentParser:
    parser = subparsers.add_parser(
        "check",
        help="check an implementation of a measure against the exact tie-aware value",
        description=_DESCRIPTION,
        epilog=_EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("target", metavar="MODULE:FUNCTION", help="the code to check (or a command line with --adapter command)")
    parser.add_argument("measure", metavar="MEASURE", help="ir_measures-style name: AP, AP@10, nDCG@5, P(rel=2)@5, RR, ...")
    parser.add_argument("--adapter", choices=ADAPTERS, default="scores", help="calling convention of the code (default: scores)")
    parser.add_argument("--qid", default="q1", metavar="ID", help="query id the qrels-run and command adapters use (default: q1; some backends want a number, e.g. 1)")
    parser.add_argument("--pick", metavar="NAME", help="with --adapter command: the measure column to read")
    parser.add_argument("--max-size", type=int, default=4, metavar="N", help=f"every tie structure up to N documents (default: 4, at most {MAX_SIZE}: each size is ~5x the inputs)")
    parser.add_argument("--min-size", type=int, default=1, metavar="N", help="skip inputs of fewer documents (default: 1)")
    parser.add_argument("--max-examples", type=int, default=200, metavar="N", help="hypothesis cases beyond that (default: 200)")
    parser.add_argument("--rel-tol", type=float, default=1e-9, metavar="X", help="relative tolerance for floats (default: 1e-9)")
    parser.add_argument("--abs-tol", type=float, default=0.0, metavar="X", help="absolute tolerance for floats (default: 0)")
    parser.add_argument(
        "--labels",
        metavar="L,L,..|binary|integer",
        help="the labels the code takes: exactly these (e.g. 0,1), binary (0,1), or integer (0..4); "
        "default: 0,1,2, then grades 3, 4 and 1/2 (1/2 only to name the relevance threshold)",
    )
    parser.add_argument("--scores", metavar="KIND[,KIND]", help=f"the scores the code takes: any (default) or among {', '.join(SCORE_KINDS)}")
    parser.add_argument("--max-docs", type=int, metavar="N", help="the most documents one input may hold (default: no limit)")
    parser.add_argument("--untied", action="store_true", help="untied inputs only: is it at least the ordinary measure?")
    parser.add_argument("--spread", choices=tuple(STATISTICS), help="FUNCTION computes this statistic of MEASURE over tie-breakings (min, max, variance, distribution)")
    parser.add_argument("--format", choices=FORMATS, default="text", help="text (default) or json: the result as one JSON object")
    parser.add_argument("--truth-first", action="store_true", help="with --adapter vectors or tensors: FUNCTION(labels, scores)")
    parser.add_argument("--tensor", metavar="MODULE:FUNCTION", help="with --adapter tensors: the tensor constructor, e.g. torch:tensor")
    parser.add_argument("--rank-column", metavar="NAME", help="with --adapter dataframes: also give a rank column (tied items share a rank)")
    parser.add_argument("--timeout", type=float, default=adapters.TIMEOUT, metavar="SECONDS", help=f"a call taking longer fails and stops the check (default: {adapters.TIMEOUT:g})")
    parser.add_argument("--max-time", type=float, default=worker.BUDGET, metavar="SECONDS", help=f"the implementation's calls together may take this long, then the check stops (default: {worker.BUDGET:g})")
    parser.add_argument("--memory", type=int, default=worker.MEMORY, metavar="MIB", help=f"memory the implementation's worker process may allocate (default: {worker.MEMORY} MiB; 0: no limit)")
    parser.set_defaults(run=run)
    return parser


def load(target: str) -> Callable[..., Any]:
    """FUNCTION from ``MODULE:FUNCTION``; MODULE is a dotted name (found from the current directory too) or a .py path."""
    module_name, colon, function = target.rpartition(":")
    if not colon or not module_name or not function:
        raise bad("target", target, "must be MODULE:FUNCTION, e.g. mymetrics:average_precision")
    if module_name.endswith(".py") or os.sep in module_name:
        if not os.path.isfile(module_name):
            raise bad("target", target, f"names the file {module_name!r}, which does not exist")
        spec = importlib.util.spec_from_file_location(os.path.splitext(os.path.basename(module_name))[0], module_name)
        assert spec is not None and spec.loader is not None
        module = importlib.util.module_from_spec(spec)
        try:
            spec.loader.exec_module(module)
        except Exception as exc:  # SyntaxError, ImportError, or anything its top level raises
            raise bad("target", target, f"names a module that cannot be imported ({_one_line(exc)})") from None
    else:
        if os.getcwd() not in sys.path:
            sys.path.insert(0, os.getcwd())
        try:
            module = importlib.import_module(module_name)
        except Exception as exc:  # not only ImportError: a SyntaxError in the module is an error, not "differs"
            raise bad("target", target, f"names a module that cannot be imported ({_one_line(exc)})") from None
    try:
        fn = getattr(module, function)
    except AttributeError:
        raise bad("target", target, f"names no function {function!r} in {module_name!r}") from None
    if not callable(fn):
        raise bad("target", target, "names something that is not callable")
    return fn


def _one_line(exc: BaseException) -> str:
    """The exception as one short line: its type and message, with the file and line for a SyntaxError."""
    text = " ".join(f"{type(exc).__name__}: {exc}".split())
    return text if len(text) <= 300 else text[:297] + "..."


def _labels(text: Optional[str]) -> Any:
    if text is None or text in LABEL_KINDS:
        return text
    try:
        values = tuple(int(x) for x in text.split(",") if x.strip())
    except ValueError:
        raise bad("--labels", text, f"must be comma-separated ints, e.g. 0,1,2, or one of {', '.join(LABEL_KINDS)}") from None
    if not values:
        raise bad("--labels", text, "must name at least one label")
    return values


def _impl(args: argparse.Namespace) -> Callable[[list, list], Any]:
    if not 0 < args.timeout < float("inf"):
        raise bad("--timeout", args.timeout, "must be a number of seconds > 0")
    if args.adapter == "command":
        return adapters.from_command(args.target, pick=args.pick, qid=args.qid, timeout=args.timeout)
    fn = load(args.target)
    if args.adapter == "qrels-run":
        return adapters.from_qrels_run(fn, qid=args.qid)
    if args.adapter == "arrays":
        return adapters.from_arrays(fn)
    if args.adapter == "vectors":
        return adapters.from_vectors(fn, truth_first=args.truth_first)
    if args.adapter == "tensors":
        if not args.tensor:
            raise bad("--tensor", args.tensor, "is needed with --adapter tensors, e.g. --tensor torch:tensor")
        return adapters.from_tensors(fn, load(args.tensor), truth_first=args.truth_first)
    if args.adapter == "dataframes":
        return adapters.from_dataframes(fn, rank=args.rank_column)
    if args.adapter == "csr":
        return adapters.from_csr(fn)
    if args.adapter == "ids":
        return adapters.from_ranked_ids(fn)
    if args.adapter == "rbo-untied":
        return adapters.rbo_untied(fn)
    return fn


def _isolation(args: argparse.Namespace) -> dict[str, Any]:
    """The worker's limits: --timeout per call (a command's own timeout fires first), --max-time, --memory."""
    if not 0 < args.max_time < float("inf"):
        raise bad("--max-time", args.max_time, "must be a number of seconds > 0")
    if args.memory < 0:
        raise bad("--memory", args.memory, "must be an int number of MiB >= 0 (0: no limit)")
    # a command is timed by the adapter, which ends the command's process first; the worker waits a little longer
    timeout = args.timeout + 5 if args.adapter == "command" else args.timeout
    return dict(timeout=timeout, budget=args.max_time, memory=args.memory or None)


def run(args: argparse.Namespace) -> int:
    # a module that monkeypatches tieaware when imported is undone before any expected value is computed
    with worker.kept_tieaware() as changed:
        impl = _impl(args)
    if changed:
        print(f"tieaware check: note: importing {args.target} changed {', '.join(sorted(set(changed))[:5])}; undone", file=sys.stderr)
    options = dict(
        max_size=args.max_size,
        min_size=args.min_size,
        max_examples=args.max_examples,
        rel_tol=args.rel_tol,
        abs_tol=args.abs_tol,
        labels=_labels(args.labels),
        scores=args.scores,
        max_docs=args.max_docs,
        progress=args.format == "text",
        **_isolation(args),
    )
    if args.spread is not None:
        if args.untied:
            raise bad("--untied", True, "does not go with --spread (untied, every statistic is the value itself)")
        result = spread(impl, args.measure, args.spread, **options)
    else:
        result = implementation(impl, args.measure, ties=not args.untied, **options)
    if args.format == "json":
        print(json.dumps({"target": args.target, **result.as_dict()}, indent=1, ensure_ascii=False))
    else:
        print(f"{args.target}: {result}")
    return 0 if result.ok else 1
