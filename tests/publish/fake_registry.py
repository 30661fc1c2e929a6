#!/usr/bin/python3
"""A small scriptable OCI registry on 127.0.0.1, for what docker-registry
cannot play: a Bearer token service, an upload broken off half way, and a
hostile registry (tests/publish/test_hostile_registry.py imports it).

As a program:  fake_registry.py PORTFILE MODE      MODE: bearer | drop
writes the port it listens on (a free one) to PORTFILE and serves forever.

As a module: Fake(...) starts two servers in threads, `main` (the registry)
and `other` (another origin: a CDN, an upload host or a token service on
another port). Both record every request (server, method, path, headers) in
Fake.log. What the registry does is set by attributes, changeable between
runs:
  auth          None | "basic" | "bearer"   login the registry asks for
  realm_other   the Bearer realm is on `other`
  token         the token the token service hands out
  blob_redirect None | "other" | "localhost": blob GETs answer 307 to the
                same path on `other`, or on localhost:<main port>
  upload_to     None | "other" | "localhost": where an upload's Location points
  other_401     `other` answers every request 401 with a Basic challenge
  blob_mode     None | "endless" | "huge-length" | "drip" | "stall" | "wrong"
                how blob GETs answer (see Handler.blob)
  manifest_error  (status, body) to answer manifest GETs with
With tls=(cert, key), `main` speaks https (`other` stays plain http).
"""
import base64
import hashlib
import http.server
import json
import os
import re
import sys
import threading
import time
import uuid

USER, PASSWORD = "ci", "s3cret"


def digest_of(data):
    return "sha256:" + hashlib.sha256(data).hexdigest()


class Fake:
    def __init__(self, mode=None, tls=None):
        """tls: (certfile, keyfile) to serve `main` over https."""
        self.auth = "bearer" if mode == "bearer" else None
        self.drop = mode == "drop"
        self.user, self.password = USER, PASSWORD
        self.token = "tok-" + uuid.uuid4().hex
        self.realm_other = False
        self.blob_redirect = None
        self.upload_to = None
        self.other_401 = False
        self.blob_mode = None
        self.manifest_error = None
        self.blobs, self.manifests, self.uploads = {}, {}, {}
        self.log = []
        self.sent = 0  # blob bytes written by the last blob GET
        self.lock = threading.Lock()
        self.servers = {}
        for name in ("main", "other"):
            srv = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
            srv.daemon_threads = True
            srv.fake, srv.name = self, name
            self.servers[name] = srv
        if tls:
            import ssl
            ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
            ctx.load_cert_chain(*tls)
            main = self.servers["main"]
            main.socket = ctx.wrap_socket(main.socket, server_side=True)
        self.port = self.servers["main"].server_port
        self.other_port = self.servers["other"].server_port

    def start(self):
        for srv in self.servers.values():
            threading.Thread(target=srv.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True).start()
        return self

    def stop(self):
        for srv in self.servers.values():
            srv.shutdown()
            srv.server_close()

    def add_artifact(self, tag, model, data=None, data_title="m.onnx.data", model_size=None, data_size=None,
                     model_digest=None):
        """Stores an nnfx-style artifact under tag; model_size / data_size /
        model_digest override what the manifest says (raw JSON text)."""
        cfg = b'{"created_by": "fake"}'
        for b in (model, data, cfg):
            if b is not None:
                self.blobs[digest_of(b)] = b
        layers = ['{"mediaType": "application/vnd.onnx.model", "digest": "%s", "size": %s, '
                  '"annotations": {"org.opencontainers.image.title": "m.onnx"}}'
                  % (model_digest or digest_of(model), model_size if model_size is not None else len(model))]
        if data is not None:
            layers.append('{"mediaType": "application/vnd.onnx.model.external-data", "digest": "%s", "size": %s, '
                          '"annotations": {"org.opencontainers.image.title": %s}}'
                          % (digest_of(data), data_size if data_size is not None else len(data),
                             json.dumps(data_title)))
        text = ('{"schemaVersion": 2, "mediaType": "application/vnd.oci.image.manifest.v1+json", '
                '"config": {"mediaType": "application/vnd.nnfx.model.config.v1+json", "digest": "%s", "size": %d}, '
                '"layers": [%s]}' % (digest_of(cfg), len(cfg), ", ".join(layers))).encode()
        self.manifests[tag] = self.manifests[digest_of(text)] = text
        return digest_of(text)

    def requests(self, server=None, header=None):
        """The logged requests (of one server; having one header)."""
        with self.lock:
            return [r for r in self.log if (server is None or r["server"] == server)
                    and (header is None or header.lower() in r["headers"])]


class Handler(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *args):
        pass

    @property
    def fake(self):
        return self.server.fake

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

    def base(self, where):
        if where == "other":
            return "http://127.0.0.1:%d" % self.fake.other_port
        if where == "localhost":
            return "http://localhost:%d" % self.fake.port
        return ""

    def basic_ok(self):
        want = "Basic " + base64.b64encode(("%s:%s" % (self.fake.user, self.fake.password)).encode()).decode()
        return self.headers.get("Authorization") == want

    def authorised(self):
        f = self.fake
        if self.server.name == "other" and f.other_401:
            self.body()
            self.reply(401, b"", {"WWW-Authenticate": 'Basic realm="other"'})
            return False
        # `other`, and localhost:<main port>, play another origin that asks for no login
        if self.server.name != "main" or not f.auth or self.headers.get("Host", "").startswith("localhost"):
            return True
        if f.auth == "basic" and self.basic_ok():
            return True
        if f.auth == "bearer" and self.headers.get("Authorization") == "Bearer " + f.token:
            return True
        self.body()
        if f.auth == "basic":
            challenge = 'Basic realm="fake"'
        else:
            port = f.other_port if f.realm_other else f.port
            challenge = 'Bearer realm="http://127.0.0.1:%d/token",service="fake",scope="repository:m:pull"' % port
        self.reply(401, b'{"errors":[{"code":"UNAUTHORIZED","message":"authentication required"}]}',
                   {"WWW-Authenticate": challenge})
        return False

    def token(self):
        if not self.basic_ok() or "scope=repository" not in self.path:
            return self.reply(401, b'{"errors":[{"code":"UNAUTHORIZED"}]}')
        self.reply(200, json.dumps({"token": self.fake.token}).encode(), {"Content-Type": "application/json"})

    def blob(self, data):
        """Answers a blob GET as blob_mode says: endless (chunked, never
        ending), huge-length (a Content-Length of 50 MB, then bytes), drip
        (the right length, one byte each 50 ms), stall (half, then 30 s of
        nothing), wrong (the right length, other bytes)."""
        f, mode = self.fake, self.fake.blob_mode
        f.sent = 0
        if mode in (None, "wrong"):
            if mode == "wrong":
                data = bytes(len(data))
            return self.reply(200, data, {"Content-Type": "application/octet-stream"})
        self.send_response(200)
        self.send_header("Content-Type", "application/octet-stream")
        if mode == "endless":
            self.send_header("Transfer-Encoding", "chunked")
        else:
            self.send_header("Content-Length", str(50 << 20 if mode == "huge-length" else len(data)))
        self.end_headers()
        chunk = b"x" * 65536
        try:
            if mode == "endless":
                while f.sent < (64 << 20):
                    self.wfile.write(b"%x\r\n%s\r\n" % (len(chunk), chunk))
                    f.sent += len(chunk)
                self.wfile.write(b"0\r\n\r\n")
            elif mode == "huge-length":
                while f.sent < (50 << 20):
                    self.wfile.write(chunk)
                    f.sent += len(chunk)
            elif mode == "drip":
                for i in range(len(data)):
                    self.wfile.write(data[i:i + 1])
                    self.wfile.flush()
                    f.sent += 1
                    time.sleep(0.05)
            elif mode == "stall":
                self.wfile.write(data[:len(data) // 2])
                self.wfile.flush()
                f.sent += len(data) // 2
                time.sleep(30)
        except (BrokenPipeError, ConnectionResetError):
            pass
        self.close_connection = True

    def route(self):
        f = self.fake
        with f.lock:
            f.log.append({"server": self.server.name, "method": self.command, "path": self.path,
                          "headers": {k.lower(): v for k, v in self.headers.items()}})
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
                d = digest_of(data)
                f.manifests[rest] = f.manifests[d] = data
                return self.reply(201, b"", {"Docker-Content-Digest": d})
            if f.manifest_error:
                return self.reply(f.manifest_error[0], f.manifest_error[1], {"Content-Type": "application/json"})
            data = f.manifests.get(rest)
            if data is None:
                return self.reply(404)
            return self.reply(200, data, {"Content-Type": json.loads(data)["mediaType"],
                                          "Docker-Content-Digest": digest_of(data)})
        if rest.startswith("uploads/"):
            uid = rest[len("uploads/"):].split("?")[0]
            if self.command == "POST":
                uid = uuid.uuid4().hex
                f.uploads[uid] = b""
                return self.reply(202, b"", {"Location": "%s/v2/%s/blobs/uploads/%s" %
                                             (self.base(f.upload_to), repo, uid)})
            if f.drop:
                # read a little of the body, then break the connection off
                self.rfile.read(min(100, int(self.headers.get("Content-Length") or 0)))
                self.close_connection = True
                self.connection.shutdown(2)
                return
            f.uploads[uid] = f.uploads.get(uid, b"") + self.body()
            if self.command == "PATCH":
                return self.reply(202, b"", {"Location": "%s/v2/%s/blobs/uploads/%s" %
                                             (self.base(f.upload_to), repo, uid),
                                             "Range": "0-%d" % (len(f.uploads[uid]) - 1)})
            m = re.search(r"digest=([^&]+)", self.path)
            d = m.group(1).replace("%3A", ":") if m else None
            if digest_of(f.uploads[uid]) != d:
                return self.reply(400, b'{"errors":[{"code":"DIGEST_INVALID"}]}')
            f.blobs[d] = f.uploads.pop(uid)
            return self.reply(201, b"", {"Location": "/v2/%s/blobs/%s" % (repo, d)})
        data = f.blobs.get(rest)
        if data is None:
            return self.reply(404)
        if self.command == "GET" and f.blob_redirect and self.server.name == "main" and \
                not self.headers.get("Host", "").startswith("localhost"):
            return self.reply(307, b"", {"Location": self.base(f.blob_redirect) + self.path})
        if self.command == "HEAD":
            return self.reply(200, b"", {"Content-Type": "application/octet-stream"})
        return self.blob(data)

    do_GET = do_HEAD = do_POST = do_PUT = do_PATCH = route


if __name__ == "__main__":
    port_file, mode = sys.argv[1], sys.argv[2]
    fake = Fake(mode)
    with open(port_file + ".tmp", "w") as out:
        out.write(str(fake.port))
    os.rename(port_file + ".tmp", port_file)
    fake.start()
    threading.Event().wait()
