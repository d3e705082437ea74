-- GET as a browser asks for a page: HTML accepted, gzip accepted, and the session's cookie when
-- COOKIE names one (web.sh's signed-in run). Plus the shared result line.
dofile((os.getenv("BENCH_DIR") or "bench") .. "/report.lua")

wrk.headers["Accept"] = "text/html,application/xhtml+xml"
wrk.headers["Accept-Encoding"] = "gzip, deflate, br"
local cookie = os.getenv("COOKIE")
if cookie and cookie ~= "" then wrk.headers["Cookie"] = cookie end
