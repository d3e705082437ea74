-- Shared wrk `done` hook: one machine-readable line after wrk's own --latency report.
--   BENCH_RESULT rps=<req/s> p50_us=<us> p99_us=<us> requests=<n> non2xx=<n> errors=<n> max_us=<us>
-- Loaded by every bench script (see get.lua and token.lua).
function done(summary, latency, requests)
  local secs = summary.duration / 1e6
  local e = summary.errors
  io.write(string.format(
    "BENCH_RESULT rps=%.1f p50_us=%d p99_us=%d requests=%d non2xx=%d errors=%d max_us=%d\n",
    summary.requests / secs,
    latency:percentile(50),
    latency:percentile(99),
    summary.requests,
    e.status,
    e.connect + e.read + e.write + e.timeout,
    latency.max))
end
