"""RecBole's MAP@5 written over one list: ties in input order, relevant means label > 0, divided by min(R, 5), rounded to 4 decimals.

`tieaware check recbole_like:map_at_5 AP@5` (docs/check.md) reports its
profile: another convention (AP(norm=capped)@5), a tie bug (input order),
its precision (4 decimals) and its relevance threshold.
"""


def map_at_5(scores, labels):
    order = sorted(range(len(scores)), key=lambda i: -scores[i])  # ties: input order
    hits, total = 0, 0.0
    for rank, i in enumerate(order[:5], start=1):
        if labels[i] > 0:
            hits += 1
            total += hits / rank
    relevant = sum(1 for x in labels if x > 0)
    return round(total / min(relevant, 5), 4) if relevant else 0.0
