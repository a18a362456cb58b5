#!/usr/bin/env python3
"""Run heat-tempest-plugin / heat_integrationtests functional test modules with plain unittest
and write per-test results as JSON.  Tempest config comes from $TEMPEST_CONFIG_DIR/$TEMPEST_CONFIG
(see heat-api-tests.sh, which also starts fake_keystone.py).

Usage: python run_functional.py --out results.json MODULE_OR_TEST_ID [...]
"""

import argparse
import datetime
import importlib
import json
import pkgutil
import sys
import time
import unittest


class Rec(unittest.TextTestResult):
    def __init__(self, *a, **kw):
        super().__init__(*a, **kw)
        self.records, self._t0 = [], {}

    def startTest(self, t):
        self._t0[t.id()] = time.monotonic()
        super().startTest(t)

    def _r(self, t, st, detail=""):
        r = {
            "id": t.id(),
            "status": st,
            "seconds": round(time.monotonic() - self._t0.get(t.id(), time.monotonic()), 2),
        }
        if detail:
            r["detail"] = detail[-2500:]
        self.records.append(r)

    def addSuccess(self, t):
        super().addSuccess(t)
        self._r(t, "pass")

    def addFailure(self, t, e):
        super().addFailure(t, e)
        self._r(t, "fail", self._exc_info_to_string(e, t))

    def addError(self, t, e):
        super().addError(t, e)
        self._r(t, "error", self._exc_info_to_string(e, t))

    def addSkip(self, t, why):
        super().addSkip(t, why)
        self._r(t, "skip", str(why))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", required=True)
    ap.add_argument("--label", default=None)
    ap.add_argument("names", nargs="+")
    a = ap.parse_args()
    suite = unittest.TestSuite()
    load_err = {}
    names = []
    for n in a.names:  # expand packages to their test_* modules
        try:
            mod = importlib.import_module(n)
        except Exception:
            mod = None
        if mod is not None and hasattr(mod, "__path__"):
            names += sorted(
                n + "." + m.name
                for m in pkgutil.iter_modules(mod.__path__)
                if m.name.startswith("test_")
            )
        else:
            names.append(n)
    for n in names:
        try:
            suite.addTests(unittest.defaultTestLoader.loadTestsFromName(n))
        except Exception as e:  # import errors etc.
            load_err[n] = repr(e)
    t0 = time.time()
    res = unittest.TextTestRunner(verbosity=2, resultclass=Rec, stream=sys.stdout).run(suite)
    counts = {}
    for r in res.records:
        counts[r["status"]] = counts.get(r["status"], 0) + 1
    with open(a.out, "w") as out:
        json.dump(
            {
                "label": a.label,
                "names": a.names,
                "load_errors": load_err,
                "date_utc": datetime.datetime.utcnow().strftime("%Y-%m-%dT%H:%M:%SZ"),
                "wall_s": round(time.time() - t0, 1),
                "counts": counts,
                "tests": res.records,
            },
            out,
            indent=1,
        )
    print(json.dumps(counts), "load errors:", load_err)
    return 0 if set(counts) <= {"pass", "skip"} and not load_err else 1


if __name__ == "__main__":
    sys.exit(main())
