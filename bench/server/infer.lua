-- wrk body for migraphx-server: POST the request in $MIGX_BODY (JSON, optionally followed by
-- binary tensors whose JSON part is $MIGX_HEADER_LEN bytes long) to the infer URL.
local f = assert(io.open(os.getenv("MIGX_BODY"), "rb"))
wrk.method = "POST"
wrk.body = f:read("*a")
f:close()
local hl = os.getenv("MIGX_HEADER_LEN")
if hl and hl ~= "" then
  wrk.headers["Inference-Header-Content-Length"] = hl
  wrk.headers["Content-Type"] = "application/octet-stream"
else
  wrk.headers["Content-Type"] = "application/json"
end

local statuses = {}
function response(status, headers, body)
  statuses[status] = (statuses[status] or 0) + 1
end

function done(summary, latency, requests)
  io.write(string.format("LATENCY_US p50=%d p90=%d p99=%d max=%d\n", latency:percentile(50),
    latency:percentile(90), latency:percentile(99), latency.max))
end
