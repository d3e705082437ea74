-- POST /api/v1/auth/token with the API key in BENCH_API_KEY: exchanges the key for an access
-- token on every request (key hash lookup + HS256 signing).
dofile((os.getenv("BENCH_DIR") or "bench") .. "/report.lua")

local key = os.getenv("BENCH_API_KEY")
if not key or key == "" then
  error("BENCH_API_KEY is not set")
end

wrk.method = "POST"
wrk.path = "/api/v1/auth/token"
wrk.headers["Content-Type"] = "application/json"
wrk.body = '{"api_key":"' .. key .. '"}'
