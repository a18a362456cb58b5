#!/usr/bin/env python3
"""Minimal fake Keystone v3 for running heat-tempest-plugin / heat_integrationtests
functional tests against a noauth Heat (or a Heat-API-compatible server) on loopback.

It answers only what keystoneauth1's password plugin needs:
  GET  /  and  GET /v3        version discovery
  POST /v3/auth/tokens        any user/password -> token (X-Subject-Token) whose catalog has
                              one 'orchestration' service pointing at --heat-url
  GET  /v3/auth/tokens        same token body (validation)
The project id/name of the token is --project (default 'admin', which is what Heat's noauth
middleware uses).

Usage: python fake_keystone.py --port 8056 --heat-url http://127.0.0.1:8004/v1/admin
"""

import argparse
import json
import uuid
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer


def make_handler(args):
    base = f"http://127.0.0.1:{args.port}"

    def token_body():
        eps = [
            {
                "id": "h-" + i,
                "interface": i,
                "region": args.region,
                "region_id": args.region,
                "url": args.heat_url,
            }
            for i in ("public", "internal", "admin")
        ]
        proj = {
            "id": args.project,
            "name": args.project,
            "domain": {"id": "default", "name": "Default"},
        }
        return {
            "token": {
                "methods": ["password"],
                "expires_at": "2099-01-01T00:00:00.000000Z",
                "issued_at": "2024-01-01T00:00:00.000000Z",
                "audit_ids": ["fake"],
                "user": {
                    "id": args.project,
                    "name": args.project,
                    "domain": {"id": "default", "name": "Default"},
                },
                "project": proj,
                "is_domain": False,
                "roles": [{"id": r, "name": r} for r in ("admin", "member", "reader")],
                "catalog": [
                    {"type": "orchestration", "name": "heat", "id": "heat", "endpoints": eps}
                ],
            }
        }

    def version_v3():
        return {
            "id": "v3.14",
            "status": "stable",
            "updated": "2020-04-07T00:00:00Z",
            "links": [{"rel": "self", "href": base + "/v3/"}],
            "media-types": [
                {"base": "application/json", "type": "application/vnd.openstack.identity-v3+json"}
            ],
        }

    class H(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, *a):
            if args.verbose:
                super().log_message(*a)

        def _send(self, code, body, headers=None):
            data = json.dumps(body).encode()
            self.send_response(code)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            for k, v in (headers or {}).items():
                self.send_header(k, v)
            self.end_headers()
            self.wfile.write(data)

        def do_GET(self):
            p = self.path.split("?")[0].rstrip("/")
            if p == "":
                self._send(300, {"versions": {"values": [version_v3()]}})
            elif p == "/v3":
                self._send(200, {"version": version_v3()})
            elif p == "/v3/auth/tokens":
                self._send(
                    200, token_body(), {"X-Subject-Token": self.headers.get("X-Subject-Token", "x")}
                )
            else:
                self._send(404, {"error": {"code": 404, "message": "fake keystone: " + p}})

        def do_POST(self):
            n = int(self.headers.get("Content-Length") or 0)
            self.rfile.read(n)
            p = self.path.split("?")[0].rstrip("/")
            if p == "/v3/auth/tokens":
                self._send(201, token_body(), {"X-Subject-Token": "fake-" + uuid.uuid4().hex})
            else:
                self._send(404, {"error": {"code": 404, "message": "fake keystone: " + p}})

        do_HEAD = do_GET

    return H


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--port", type=int, default=8056)
    ap.add_argument("--heat-url", required=True)
    ap.add_argument("--project", default="admin")
    ap.add_argument("--region", default="regionOne")
    ap.add_argument("--verbose", action="store_true")
    args = ap.parse_args()
    srv = ThreadingHTTPServer(("127.0.0.1", args.port), make_handler(args))
    print(f"fake keystone on http://127.0.0.1:{args.port}/v3 -> {args.heat_url}", flush=True)
    srv.serve_forever()


if __name__ == "__main__":
    main()
