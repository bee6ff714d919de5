#!/usr/bin/env python3
"""Checks a RAGGED_REPORT file of libragged_pmpi.so (docs/pmpi.md, "Report").

    check_report.py REPORT [--ranks P] [--min-sites K] [--straggler R] [--site SPEC]...

Every report must parse, carry the top-level fields, and give each site its calls, bytes,
algorithms (whose calls add up to the site's), waits for each participant, and an imbalance
and link model wherever more than one rank took part.

A SPEC is comma-separated key=value pairs. It selects the one site with the given `collective`
(and `bytes`, `root` when given; "-" for null) and checks:
    calls=N          the number of calls
    bytes_total=N    the bytes all ranks handed in over all calls
    algorithm=NAME   every call ran NAME ...
    why=WHY          ... for this reason (forced, auto, rules, unset, fallback)
    straggler=R      rank R was last in at least 80% of the calls, and it is the site's first
                     straggler; its mean wait is the smallest and every other rank waits longer
    aware_min=N      at least N calls ran an arrival-aware algorithm (bdr, bgd, bslb, early_late,
                     slt, prr, prd, sorted_chain, sln, sls, bsls, sbn) chosen by auto
    aware_max=N      at most N calls ran an arrival-aware algorithm
    omega=S          the imbalance (median of max - min entry time over the ranks, per call)
                     is between 0.7 S and 3 S seconds, and omega/tau is above 1
"""
import argparse
import json
import sys

failures = []
ARRIVAL_AWARE = {"bdr", "bgd", "bslb", "early_late", "slt", "prr", "prd", "sorted_chain", "sln", "sls", "bsls", "sbn"}


def fail(text):
    failures.append(text)
    print("FAIL: " + text, file=sys.stderr)


def need(obj, keys, where):
    for key in keys:
        if key not in obj:
            fail("%s: no field '%s'" % (where, key))
            return False
    return True


def parse_spec(text):
    spec = {}
    for part in text.split(","):
        key, _, value = part.partition("=")
        spec[key.strip()] = value.strip()
    return spec


def check_structure(report, ranks):
    need(report, ["ragged_pmpi_report", "ranks", "calls_kept_per_site", "clock", "link", "communicators", "sites",
                  "stragglers"], "report")
    if ranks is not None and report.get("ranks") != ranks:
        fail("report: %s ranks, expected %d" % (report.get("ranks"), ranks))
    clock = report.get("clock", {})
    if need(clock, ["method", "uncertainty_s", "ranks"], "clock"):
        if len(clock["ranks"]) != report.get("ranks"):
            fail("clock: %d ranks listed" % len(clock["ranks"]))
        if not clock["uncertainty_s"] < 0.01:
            fail("clock: uncertainty %s s" % clock["uncertainty_s"])
    link = report.get("link", {})
    if need(link, ["method", "alpha_s", "beta_s_per_byte", "known"], "link"):
        if report.get("ranks", 1) > 1 and not link["known"]:
            fail("link: unknown with %d ranks" % report["ranks"])
    communicators = {c.get("id"): c for c in report.get("communicators", [])}
    for site in report.get("sites", []):
        where = "site %s" % site.get("id")
        if site.get("communicator", {}).get("id") not in communicators:
            fail("%s: communicator %s is not listed" % (where, site.get("communicator")))
        if not need(site, ["communicator", "collective", "bytes", "root", "calls", "bytes_total", "participants",
                           "consistent", "algorithms", "wait", "imbalance", "stragglers", "ranks"], where):
            continue
        where = "site %d (%s, %s bytes)" % (site["id"], site["collective"], site["bytes"])
        if sum(a["calls"] for a in site["algorithms"]) != site["calls"]:
            fail("%s: the algorithms' calls do not add up to %d" % (where, site["calls"]))
        for a in site["algorithms"]:
            need(a, ["algorithm", "why", "setting", "fallback", "calls"], where + " algorithm")
            if a["why"] not in ("forced", "auto", "rules", "unset", "fallback"):
                fail("%s: why '%s'" % (where, a["why"]))
        if len(site["ranks"]) != site["participants"]:
            fail("%s: %d ranks listed, %d participants" % (where, len(site["ranks"]), site["participants"]))
        for r in site["ranks"]:
            need(r, ["rank", "comm_rank", "calls", "wait_mean_s", "wait_max_s"], where + " rank")
            if r["wait_max_s"] < r["wait_mean_s"] or r["wait_mean_s"] < 0:
                fail("%s: rank %d waits mean %s max %s" % (where, r["rank"], r["wait_mean_s"], r["wait_max_s"]))
        imbalance = site["imbalance"]
        need(imbalance, ["calls_measured", "omega_mean_s", "omega_median_s", "omega_max_s", "tau_s",
                         "omega_over_tau_mean"], where + " imbalance")
        if site["participants"] > 1 and site["consistent"]:
            if imbalance["calls_measured"] != min(site["calls"], report["calls_kept_per_site"]):
                fail("%s: %s calls measured of %d" % (where, imbalance["calls_measured"], site["calls"]))
            if imbalance["omega_mean_s"] is None or imbalance["tau_s"] is None:
                fail("%s: no imbalance or tau" % where)


def find_site(report, spec):
    def matches(site):
        if site["collective"] != spec["collective"]:
            return False
        for key in ("bytes", "root"):
            if key in spec:
                want = None if spec[key] == "-" else int(spec[key])
                if site[key] != want:
                    return False
        return True

    found = [s for s in report.get("sites", []) if matches(s)]
    if len(found) != 1:
        fail("%d sites match %s" % (len(found), spec))
        return None
    return found[0]


def check_site(report, spec):
    site = find_site(report, spec)
    if site is None:
        return
    where = "site %d (%s)" % (site["id"], spec["collective"])
    if site["participants"] != report["ranks"]:
        fail("%s: %d participants" % (where, site["participants"]))
    if "calls" in spec and site["calls"] != int(spec["calls"]):
        fail("%s: %d calls, expected %s" % (where, site["calls"], spec["calls"]))
    if "bytes_total" in spec and site["bytes_total"] != int(spec["bytes_total"]):
        fail("%s: bytes_total %d, expected %s" % (where, site["bytes_total"], spec["bytes_total"]))
    if "algorithm" in spec or "why" in spec:
        algorithms = site["algorithms"]
        if len(algorithms) != 1:
            fail("%s: %d algorithms: %s" % (where, len(algorithms), algorithms))
        else:
            a = algorithms[0]
            if "algorithm" in spec and a["algorithm"] != spec["algorithm"]:
                fail("%s: ran %s, expected %s" % (where, a["algorithm"], spec["algorithm"]))
            if "why" in spec and a["why"] != spec["why"]:
                fail("%s: why %s, expected %s" % (where, a["why"], spec["why"]))
    if "aware_min" in spec or "aware_max" in spec:
        aware = [a for a in site["algorithms"] if a["algorithm"] in ARRIVAL_AWARE]
        count = sum(a["calls"] for a in aware)
        if "aware_min" in spec and (count < int(spec["aware_min"]) or any(a["why"] != "auto" for a in aware)):
            fail("%s: %d calls ran an arrival-aware algorithm chosen by auto, expected at least %s: %s" %
                 (where, count, spec["aware_min"], site["algorithms"]))
        if "aware_max" in spec and count > int(spec["aware_max"]):
            fail("%s: %d calls ran an arrival-aware algorithm, expected at most %s: %s" %
                 (where, count, spec["aware_max"], site["algorithms"]))
    imbalance = site["imbalance"]
    if "straggler" in spec:
        late = int(spec["straggler"])
        measured = imbalance["calls_measured"]
        stragglers = site["stragglers"]
        if not stragglers or stragglers[0]["rank"] != late:
            fail("%s: stragglers %s, expected rank %d first" % (where, stragglers, late))
        elif stragglers[0]["last"] < 0.8 * measured:
            fail("%s: rank %d last in only %d of %d calls" % (where, late, stragglers[0]["last"], measured))
        waits = {r["rank"]: r["wait_mean_s"] for r in site["ranks"]}
        others = [w for r, w in waits.items() if r != late]
        if others and not waits.get(late, 1e9) < min(others):
            fail("%s: the late rank's mean wait %s is not the smallest of %s" % (where, waits.get(late), waits))
    if "omega" in spec:
        omega = float(spec["omega"])
        median = imbalance["omega_median_s"]
        if median is None or not 0.7 * omega <= median <= 3 * omega:
            fail("%s: omega median %s s, expected about %s s" % (where, median, omega))
        if imbalance["omega_over_tau_mean"] is None or not imbalance["omega_over_tau_mean"] > 1:
            fail("%s: omega/tau %s" % (where, imbalance["omega_over_tau_mean"]))
        if "straggler" in spec:
            late = int(spec["straggler"])
            # Who must wait for the late rank: everybody where every rank needs its data; in a
            # reduce or gather only the root; in a bcast or scatter from another rank nobody (an
            # arrival-aware one lets them leave).
            needs_all = site["collective"] not in ("bcast", "scatter", "reduce", "gather")
            root = site.get("root")
            for r in site["ranks"]:
                if not needs_all and r["rank"] != root:
                    continue
                if site["collective"] in ("bcast", "scatter"):
                    continue
                if r["rank"] != late and not r["wait_mean_s"] > 0.5 * omega:
                    fail("%s: rank %d waits %s s on average, less than half the delay" %
                         (where, r["rank"], r["wait_mean_s"]))
    print("ok: %s: %d calls, %s, omega median %s s, stragglers %s" %
          (where, site["calls"], [(a["algorithm"], a["why"]) for a in site["algorithms"]],
           imbalance["omega_median_s"], [(s["rank"], s["last"]) for s in site["stragglers"]]))


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("report")
    parser.add_argument("--ranks", type=int)
    parser.add_argument("--min-sites", type=int, default=1)
    parser.add_argument("--straggler", type=int, help="the first straggler over all sites")
    parser.add_argument("--site", action="append", default=[])
    args = parser.parse_args()
    try:
        with open(args.report) as f:
            report = json.load(f)
    except (OSError, ValueError) as e:
        print("FAIL: cannot read the report %s: %s" % (args.report, e), file=sys.stderr)
        return 1
    check_structure(report, args.ranks)
    if len(report.get("sites", [])) < args.min_sites:
        fail("%d sites, expected at least %d" % (len(report.get("sites", [])), args.min_sites))
    if args.straggler is not None:
        overall = report.get("stragglers", [])
        if not overall or overall[0]["rank"] != args.straggler:
            fail("overall stragglers %s, expected rank %d first" % (overall, args.straggler))
    for text in args.site:
        check_site(report, parse_spec(text))
    print("check_report: %s: %d sites, %d failures" % (args.report, len(report.get("sites", [])), len(failures)))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
