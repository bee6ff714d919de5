#!/usr/bin/env python3
"""Puts a `ragged-bench pap --sweep table3 --format csv` grid beside Proficz 2021's table 4.

usage: pap_beside_paper.py CELLS.csv [CELLS.csv ...] > table.md

Each cell reads "ragged · ragged without bgd / paper": the best algorithm (upper case)
and, when it is an arrival-aware one, its speedup over the best regular algorithm (RING,
NEX, LNBC); the middle entry picks among the paper's five algorithms only.
Proficz 2021's table 3 (P = 4..24) is garbled in the text extraction, so only table 4
(P = 28..48) has paper cells; the others show ragged's alone.
"""
import csv
import sys

DELAYS_MS = [0, 1, 5, 10, 50, 100, 500]
SIZES_K = [128, 256, 512, 1024, 2048]
# Proficz 2021, table 4: rows per P, one row per size (128K..2M floats), one cell per delay.
TABLE4 = {
    28: ["NEX NEX NEX NEX BDR1.01 BDR1.01 NEX",
         "RING RING BDR1.90 BDR1.74 BDR1.24 BDR1.04 BDR1.01",
         "RING RING BDR1.04 BSLB1.06 BSLB1.25 BSLB1.16 BSLB1.03",
         "RING RING BDR1.02 BDR1.04 BSLB1.24 BSLB1.21 BSLB1.05",
         "RING RING BDR1.01 BDR1.02 BSLB1.16 BSLB1.23 BSLB1.12"],
    32: ["NEX NEX NEX NEX BDR1.01 BDR1.01 NEX",
         "RING BDR1.01 BDR1.58 BDR1.66 BDR1.23 BDR1.04 BDR1.01",
         "LNBC LNBC BSLB1.13 BSLB1.12 BSLB1.03 LNBC BSLB1.01",
         "RING RING BDR1.02 BDR1.04 BSLB1.31 BSLB1.20 BSLB1.05",
         "RING RING BDR1.01 BDR1.01 BSLB1.19 BSLB1.16 BSLB1.13"],
    36: ["NEX NEX NEX NEX BDR1.01 NEX NEX",
         "NEX NEX NEX NEX BDR1.02 BDR1.01 NEX",
         "RING RING BDR1.40 BDR1.60 BDR1.40 BDR1.08 BDR1.01",
         "RING RING BDR1.02 BDR1.03 BSLB1.32 BSLB1.19 BSLB1.05",
         "RING RING BDR1.01 RING BSLB1.32 BSLB1.48 BSLB1.17"],
    40: ["NEX NEX NEX NEX NEX NEX NEX",
         "NEX NEX NEX NEX BDR1.01 BDR1.01 NEX",
         "RING RING BDR1.40 BDR1.36 BDR1.41 BDR1.09 BDR1.01",
         "RING RING BDR1.02 BDR1.03 BSLB1.25 BSLB1.19 BSLB1.06",
         "RING RING RING BDR1.01 BSLB1.33 BSLB1.25 BSLB1.18"],
    44: ["NEX NEX NEX NEX NEX NEX NEX",
         "NEX NEX NEX NEX BDR1.01 BDR1.01 NEX",
         "RING BDR1.02 BSLB1.31 BDR1.43 BDR1.40 BDR1.11 BDR1.01",
         "LNBC BSLB1.02 BSLB1.17 BSLB1.17 BSLB1.05 BSLB1.04 BSLB1.01",
         "RING RING BDR1.01 BDR1.01 BSLB1.53 BSLB1.48 BSLB1.15"],
    48: ["NEX NEX NEX NEX NEX NEX NEX",
         "NEX NEX NEX NEX NEX BDR1.01 NEX",
         "RING BDR1.04 BDR1.28 BDR1.39 BDR1.37 BDR1.12 BDR1.01",
         "RING RING BDR1.02 BDR1.03 BSLB1.67 BSLB1.41 BSLB1.12",
         "RING RING BDR1.01 BDR1.01 BSLB1.52 BSLB1.46 BSLB1.20"],
}


REGULAR = ["ring", "nex", "lnbc"]
PAPERS = ["ring", "nex", "lnbc", "bdr", "bslb"]


def label(row, algorithms):
    """The paper's cell notation for the best of `algorithms` in a sweep row."""
    times = {a: float(row["avg_elapsed_s." + a]) for a in algorithms if row.get("avg_elapsed_s." + a)}
    best = min(times, key=times.get)
    if best in REGULAR:
        return best.upper()
    regular = min(times[a] for a in REGULAR if a in times)
    return f"{best.upper()}{regular / times[best]:.2f}"


def main(paths):
    cells = {}
    for path in paths:
        with open(path, newline="") as f:
            for row in csv.DictReader(f):
                key = (int(row["procs"]), int(row["size_floats"]) // 1024, round(float(row["max_delay_s"]) * 1000))
                cells[key] = row["cell"] + " · " + label(row, PAPERS)
    procs = sorted({k[0] for k in cells})
    print("| P | size (K floats) | " + " | ".join(f"{d} ms" for d in DELAYS_MS) + " |")
    print("|---|---|" + "---|" * len(DELAYS_MS))
    for p in procs:
        for i, size in enumerate(SIZES_K):
            paper = TABLE4.get(p, [None] * 5)[i]
            paper_cells = paper.split() if paper else [None] * len(DELAYS_MS)
            out = []
            for d, theirs in zip(DELAYS_MS, paper_cells):
                ours = cells.get((p, size, d), "-")
                out.append(ours if theirs is None else f"{ours} / {theirs}")
            print(f"| {p} | {size} | " + " | ".join(out) + " |")


if __name__ == "__main__":
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    main(sys.argv[1:])
