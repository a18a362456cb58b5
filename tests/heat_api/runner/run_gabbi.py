#!/usr/bin/env python3
"""Run heat-tempest-plugin's gabbi API tests against any Heat-API-compatible endpoint.

The YAML files are read from the *installed* heat_tempest_plugin package
(heat_tempest_plugin/tests/api/gabbits/*.yaml); nothing is copied here.  The plugin's own
loader (heat_tempest_plugin/tests/api/test_heat_api.py) needs tempest config + keystone to
find the endpoint and a token; this runner replaces that with command-line arguments:

  * the endpoint URL (e.g. http://127.0.0.1:8004/v1/admin) is given on the command line;
  * the 'AuthenticationFixture' named in every YAML file is provided by this module and just
    puts --token into $OS_TOKEN (the YAML sends it as X-Auth-Token);
  * $PREFIX (stack/config name prefix; tempest uses rand_name('api')) is set to a fresh
    'api-<hex>' unless --prefix is given.

Usage:
  python run_gabbi.py http://127.0.0.1:8004/v1/admin --out results.json [--token T]
         [--files stacks,resources] [--gabbits DIR] [--verbose]

Exit status 0 when every test passed, 1 otherwise.
Needs: gabbi (and heat-tempest-plugin installed, unless --gabbits is given).  Does NOT import
tempest.
"""

import argparse
import datetime
import importlib.util
import json
import os
import platform
import sys
import time
import types
import unittest
import uuid

from gabbi import driver
from gabbi import fixture as gabbi_fixture

PKG_REL_GABBITS = os.path.join("tests", "api", "gabbits")


def find_gabbits_dir():
    spec = importlib.util.find_spec("heat_tempest_plugin")
    if spec is None or not spec.submodule_search_locations:
        sys.exit(
            "heat_tempest_plugin is not installed; pip install heat-tempest-plugin "
            "or pass --gabbits DIR"
        )
    return os.path.join(list(spec.submodule_search_locations)[0], PKG_REL_GABBITS)


def make_fixture_module(token):
    """A stand-in for heat_tempest_plugin.tests.api.fixtures (which calls keystone)."""
    mod = types.ModuleType("heat_api_noauth_fixtures")

    class AuthenticationFixture(gabbi_fixture.GabbiFixture):
        def start_fixture(self):
            os.environ["OS_TOKEN"] = token

        def stop_fixture(self):
            pass

    mod.AuthenticationFixture = AuthenticationFixture
    return mod


class RecordingResult(unittest.TextTestResult):
    def __init__(self, *a, **kw):
        super().__init__(*a, **kw)
        self.records = []
        self._t0 = {}

    def startTest(self, test):
        self._t0[test.id()] = time.monotonic()
        super().startTest(test)

    def _rec(self, test, status, detail=""):
        td = getattr(test, "test_data", {}) or {}
        tid = test.id()
        # gabbi ids look like heat_api_<file>_<nn>_<name>; the YAML file is the suite name
        rec = {
            "id": tid,
            "file": td.get("_file") or _yaml_of(tid),
            "name": td.get("name"),
            "tempest_id": td.get("desc"),
            "method": td.get("method"),
            "url": td.get("url"),
            "status": status,
            "seconds": round(time.monotonic() - self._t0.get(tid, time.monotonic()), 3),
        }
        if detail:
            rec["detail"] = detail[-3000:]
        self.records.append(rec)

    def addSuccess(self, test):
        super().addSuccess(test)
        self._rec(test, "pass")

    def addFailure(self, test, err):
        super().addFailure(test, err)
        self._rec(test, "fail", self._exc_info_to_string(err, test))

    def addError(self, test, err):
        super().addError(test, err)
        self._rec(test, "error", self._exc_info_to_string(err, test))

    def addSkip(self, test, reason):
        super().addSkip(test, reason)
        self._rec(test, "skip", reason)

    def addExpectedFailure(self, test, err):
        super().addExpectedFailure(test, err)
        self._rec(test, "xfail", self._exc_info_to_string(err, test))

    def addUnexpectedSuccess(self, test):
        super().addUnexpectedSuccess(test)
        self._rec(test, "xpass")


_YAMLS = []


def _yaml_of(test_id):
    # gabbi ids: '<test_loader_name>.<yaml basename>_<test name>.test_request'
    tail = test_id.split(".", 1)[-1]
    for y in _YAMLS:  # longest first
        if tail.startswith(y.replace("-", "_") + "_"):
            return y
    return None


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("url", help="Heat API base incl. tenant, e.g. http://127.0.0.1:8004/v1/admin")
    ap.add_argument(
        "--token",
        default=os.environ.get("OS_TOKEN", "fake-token"),
        help="sent as X-Auth-Token (default: $OS_TOKEN or fake-token)",
    )
    ap.add_argument("--prefix", default=None, help="$PREFIX for names (default api-<random>)")
    ap.add_argument(
        "--gabbits",
        default=None,
        help="directory of YAML files (default: installed heat_tempest_plugin/"
        + PKG_REL_GABBITS
        + ")",
    )
    ap.add_argument(
        "--files",
        default=None,
        help="comma-separated YAML basenames to run (e.g. stacks,templates)",
    )
    ap.add_argument("--out", default=None, help="write per-test results JSON here")
    ap.add_argument("--label", default=None, help="free-text server label stored in the JSON")
    ap.add_argument("--insecure", action="store_true", help="do not verify TLS certificates")
    ap.add_argument("--verbose", action="store_true", help="gabbi verbose (dump requests)")
    args = ap.parse_args()

    gdir = args.gabbits or find_gabbits_dir()
    src_dir = gdir
    if args.files:
        # build_tests takes a directory: link the chosen files into a temp dir
        import tempfile

        want = [f.strip() for f in args.files.split(",") if f.strip()]
        tmp = tempfile.mkdtemp(prefix="gabbits-")
        for w in want:
            fn = w if w.endswith(".yaml") else w + ".yaml"
            os.symlink(os.path.join(gdir, fn), os.path.join(tmp, fn))
        src_dir = tmp
    _YAMLS[:] = sorted(
        (os.path.splitext(f)[0] for f in os.listdir(src_dir) if f.endswith(".yaml")),
        key=len,
        reverse=True,
    )

    os.environ["PREFIX"] = args.prefix or "api-" + uuid.uuid4().hex[:8]
    os.environ["OS_TOKEN"] = args.token

    loader = unittest.TestLoader()
    suite = driver.build_tests(
        src_dir,
        loader,
        url=args.url.rstrip("/"),
        fixture_module=make_fixture_module(args.token),
        test_loader_name="heat_api",
        cert_validate=not args.insecure,
        verbose=args.verbose,
    )
    runner = unittest.TextTestRunner(verbosity=2, resultclass=RecordingResult, stream=sys.stdout)
    t0 = time.time()
    res = runner.run(suite)
    counts = {}
    for r in res.records:
        counts[r["status"]] = counts.get(r["status"], 0) + 1
    try:
        from importlib.metadata import version

        vers = {p: version(p) for p in ("gabbi", "heat-tempest-plugin")}
    except Exception:  # pragma: no cover
        vers = {}
    out = {
        "url": args.url,
        "label": args.label,
        "date_utc": datetime.datetime.utcnow().strftime("%Y-%m-%dT%H:%M:%SZ"),
        "prefix": os.environ["PREFIX"],
        "gabbits_dir_pkg_relative": "heat_tempest_plugin/" + PKG_REL_GABBITS
        if not args.gabbits
        else args.gabbits,
        "versions": vers,
        "python": platform.python_version(),
        "wall_s": round(time.time() - t0, 1),
        "counts": counts,
        "tests": res.records,
    }
    print(json.dumps(counts))
    if args.out:
        os.makedirs(os.path.dirname(os.path.abspath(args.out)), exist_ok=True)
        with open(args.out, "w") as f:
            json.dump(out, f, indent=1)
        print("wrote", args.out)
    return 0 if set(counts) <= {"pass"} else 1


if __name__ == "__main__":
    sys.exit(main())
