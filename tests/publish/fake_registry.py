#!/usr/bin/python3
"""A small stand-in OCI registry for the cases docker-registry cannot play
on loopback without a token service: Bearer auth (a WWW-Authenticate
challenge and a token endpoint that checks Basic credentials) and an upload
the server breaks off half way.

usage: fake_registry.py PORTFILE MODE      MODE: bearer | drop
Writes the port it listens on (127.0.0.1, a free one) to PORTFILE."""
import base64
import hashlib
import http.server
import json
import re
import sys
import uuid

port_file, mode = sys.argv[1], sys.argv[2]
USER, PASSWORD, TOKEN = "ci", "s3cret", "tok-" + uuid.uuid4().hex
blobs, manifests, uploads = {}, {}, {}


class Handler(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *args):
        pass

    def reply(self, code, body=b"", headers=None):
        self.send_response(code)
        for k, v in (headers or {}).items():
            self.send_header(k, v)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        if self.command != "HEAD":
            self.wfile.write(body)

    def body(self):
        n = int(self.headers.get("Content-Length") or 0)
        return self.rfile.read(n) if n else b""

    def authorised(self):
        if mode != "bearer":
            return True
        if self.headers.get("Authorization") == "Bearer " + TOKEN:
            return True
        self.body()
        realm = "http://127.0.0.1:%d/token" % self.server.server_port
        self.reply(401, b'{"errors":[{"code":"UNAUTHORIZED","message":"authentication required"}]}',
                   {"WWW-Authenticate": 'Bearer realm="%s",service="fake",scope="repository:m:pull"' % realm})
        return False

    def token(self):
        want = "Basic " + base64.b64encode(("%s:%s" % (USER, PASSWORD)).encode()).decode()
        if self.headers.get("Authorization") != want or "scope=repository" not in self.path:
            return self.reply(401, b'{"errors":[{"code":"UNAUTHORIZED"}]}')
        self.reply(200, json.dumps({"token": TOKEN}).encode(), {"Content-Type": "application/json"})

    def route(self):
        if self.path.startswith("/token"):
            return self.token()
        if not self.authorised():
            return
        m = re.match(r"^/v2/(.+)/(blobs|manifests)/(.*)$", self.path)
        if not m:
            return self.reply(200 if self.path == "/v2/" else 404)
        repo, kind, rest = m.groups()
        if kind == "manifests":
            if self.command == "PUT":
                data = self.body()
                d = "sha256:" + hashlib.sha256(data).hexdigest()
                manifests[rest] = manifests[d] = data
                return self.reply(201, b"", {"Docker-Content-Digest": d})
            data = manifests.get(rest)
            if data is None:
                return self.reply(404)
            return self.reply(200, data, {"Content-Type": json.loads(data)["mediaType"],
                                          "Docker-Content-Digest": "sha256:" + hashlib.sha256(data).hexdigest()})
        if rest.startswith("uploads/"):
            uid = rest[len("uploads/"):].split("?")[0]
            if self.command == "POST":
                uid = uuid.uuid4().hex
                uploads[uid] = b""
                return self.reply(202, b"", {"Location": "/v2/%s/blobs/uploads/%s" % (repo, uid)})
            if mode == "drop":
                # read a little of the body, then break the connection off
                self.rfile.read(min(100, int(self.headers.get("Content-Length") or 0)))
                self.close_connection = True
                self.connection.shutdown(2)
                return
            uploads[uid] = uploads.get(uid, b"") + self.body()
            if self.command == "PATCH":
                return self.reply(202, b"", {"Location": "/v2/%s/blobs/uploads/%s" % (repo, uid),
                                             "Range": "0-%d" % (len(uploads[uid]) - 1)})
            d = re.search(r"digest=([^&]+)", self.path).group(1).replace("%3A", ":")
            if "sha256:" + hashlib.sha256(uploads[uid]).hexdigest() != d:
                return self.reply(400, b'{"errors":[{"code":"DIGEST_INVALID"}]}')
            blobs[d] = uploads.pop(uid)
            return self.reply(201, b"", {"Location": "/v2/%s/blobs/%s" % (repo, d)})
        data = blobs.get(rest)
        if data is None:
            return self.reply(404)
        return self.reply(200, data, {"Content-Type": "application/octet-stream"})

    do_GET = do_HEAD = do_POST = do_PUT = do_PATCH = route


srv = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
with open(port_file + ".tmp", "w") as f:
    f.write(str(srv.server_port))
import os
os.rename(port_file + ".tmp", port_file)
srv.serve_forever()
