"""An average precision as many codebases write it: documents sorted by score, ties left in input order.

`tieaware check mymetrics:ap_stable AP` (docs/check.md) finds where this differs
from the tie-aware value: on tied scores the stable sort keeps the input
order, so the value depends on how the caller happened to list the documents.
"""


def ap_stable(scores, labels):
    order = sorted(range(len(scores)), key=lambda i: -scores[i])  # stable: ties stay in input order
    relevant = sum(1 for x in labels if x > 0)
    hits, total = 0, 0.0
    for rank, i in enumerate(order, start=1):
        if labels[i] > 0:
            hits += 1
            total += hits / rank
    return total / relevant if relevant else 0.0
