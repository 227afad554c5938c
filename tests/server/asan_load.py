"""The ASan run of migraphx-server (docs/server.md, "Tests"): start SERVER (an ASan build) on
the tiny models gen_models.py writes, batching on (2 instances, 20 ms delay), send REQUESTS
inference requests from 8 threads over keep-alive HTTP (JSON and binary tensors, 1 in 10 a
bad request), 100 more over gRPC with GRPC_CLIENT, stop it with SIGTERM, and fail unless it
exits 0 and AddressSanitizer/LeakSanitizer printed nothing.
Usage: asan_load.py SERVER GRPC_CLIENT WORK [REQUESTS=1000]"""
import http.client
import json
import os
import signal
import subprocess
import sys
import tempfile
import threading
import time

import numpy as np

server, grpc_client, work = sys.argv[1:4]
total = int(sys.argv[4]) if len(sys.argv) > 4 else 1000
here = os.path.dirname(os.path.abspath(__file__))
subprocess.run([sys.executable, os.path.join(here, "gen_models.py"), work], check=True, stdout=subprocess.DEVNULL)
log_path = os.path.join(work, "asan-server.log")
port_file = os.path.join(work, "asan-ports")
if os.path.exists(port_file):
    os.remove(port_file)
env = dict(os.environ)
env.setdefault("ASAN_OPTIONS", "detect_leaks=1")
log = open(log_path, "w")
t0 = time.time()
proc = subprocess.Popen([server, "--model-repository", os.path.join(work, "repo"), "--cpu", "--host", "127.0.0.1",
                         "--http-port", "0", "--grpc-port", "0", "--port-file", port_file],
                        stdout=log, stderr=subprocess.STDOUT, env=env)
while not os.path.exists(port_file):
    if proc.poll() is not None or time.time() - t0 > 600:
        sys.exit("server did not start:\n" + open(log_path).read())
    time.sleep(0.2)
ports = dict(kv.split("=") for kv in open(port_file).read().split())
print(f"server up in {time.time() - t0:.1f} s")

counts = {"ok": 0, "bad_ok": 0, "wrong": 0}
lock = threading.Lock()


def worker(k, n):
    c = http.client.HTTPConnection("127.0.0.1", int(ports["http"]), timeout=120)
    for i in range(n):
        x = np.full((1 + (i % 3), 4), float(k * 1000 + i), dtype=np.float32)
        bad = i % 10 == 9
        if i % 2:
            body = json.dumps({"inputs": [{"name": "x", "datatype": "FP32", "shape": list(x.shape),
                                           "data": x.flatten().tolist()}]}).encode()
            if bad:
                body = body[:-7]  # malformed JSON
            headers = {"Content-Type": "application/json"}
        else:
            head = json.dumps({"inputs": [{"name": "x", "datatype": "FP32", "shape": list(x.shape),
                                           "parameters": {"binary_data_size": x.nbytes}}],
                               "outputs": [{"name": "z", "parameters": {"binary_data": True}}]}).encode()
            body = head + x.tobytes()[: x.nbytes - (4 if bad else 0)]
            headers = {"Inference-Header-Content-Length": str(len(head))}
        c.request("POST", "/v2/models/tiny/infer", body=body, headers=headers)
        r = c.getresponse()
        data = r.read()
        with lock:
            if bad:
                counts["bad_ok" if r.status == 400 else "wrong"] += 1
            elif r.status == 200:
                if i % 2 == 0:
                    n_json = int(r.getheader("Inference-Header-Content-Length"))
                    z = np.frombuffer(data[n_json:], dtype=np.float32)
                else:
                    z = np.array(json.loads(data)["outputs"][1]["data"], dtype=np.float32)
                counts["ok" if np.array_equal(z, (2 * x).flatten()) else "wrong"] += 1
            else:
                counts["wrong"] += 1
    c.close()


threads = [threading.Thread(target=worker, args=(k, total // 8)) for k in range(8)]
for t in threads:
    t.start()
for t in threads:
    t.join()
with tempfile.TemporaryDirectory() as d:
    f = os.path.join(d, "x.bin")
    open(f, "wb").write(np.ones((2, 4), np.float32).tobytes())
    grpc_ok = 0
    for i in range(100):
        args = [grpc_client, f"127.0.0.1:{ports['grpc']}", "infer", "tiny", "", "x", "FP32",
                "2,4" if i % 10 else "4,4", f] + (["--typed"] if i % 2 else [])
        p = subprocess.run(args, capture_output=True, text=True, timeout=60)
        grpc_ok += (p.returncode == 0) == (i % 10 != 0)
metrics = http.client.HTTPConnection("127.0.0.1", int(ports["http"]), timeout=30)
metrics.request("GET", "/metrics")
text = metrics.getresponse().read().decode()
proc.send_signal(signal.SIGTERM)
rc = proc.wait(300)
out = open(log_path).read()
execs = [l for l in text.splitlines() if l.startswith('migraphx_inference_executions_total{model="tiny"')]
print(f"HTTP: {counts['ok']} answered right, {counts['bad_ok']} bad requests refused with 400, "
      f"{counts['wrong']} wrong; gRPC: {grpc_ok}/100 as expected; {execs}")
print(f"server exit code {rc}; {time.time() - t0:.1f} s in all; log {log_path}")
sanitizer = [l for l in out.splitlines() if "Sanitizer" in l or "runtime error" in l]
print("sanitizer lines:", len(sanitizer))
for l in sanitizer[:20]:
    print("  ", l)
ok = rc == 0 and counts["wrong"] == 0 and grpc_ok == 100 and not sanitizer
print("PASS" if ok else "FAIL")
sys.exit(0 if ok else 1)
