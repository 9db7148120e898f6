"""A stand-in engine for the lifecycle's key checks: answers GET /v1/models (model "m") on
127.0.0.1:<port> to a request that carries the key in the environment variable it is told to
read, as vLLM reads VLLM_API_KEY, and 401 to any other; with the variable's name "-", to any
request (an engine that ignores the variable). Run: python keyed_stand_in.py PORT VARIABLE."""

import json
import os
import sys
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

port, variable = int(sys.argv[1]), sys.argv[2]
key = None if variable == "-" else os.environ[variable]


class Handler(BaseHTTPRequestHandler):
    def log_message(self, *args):  # quiet
        pass

    def do_GET(self):
        allowed = key is None or self.headers.get("Authorization") == f"Bearer {key}"
        body = json.dumps({"data": [{"id": "m"}]} if allowed else {"error": "no key"}).encode()
        self.send_response(200 if allowed else 401)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)


ThreadingHTTPServer(("127.0.0.1", port), Handler).serve_forever()
