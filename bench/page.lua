-- GET as a browser asks for a page: HTML accepted, gzip accepted (web.sh). Plus the shared result line.
dofile((os.getenv("BENCH_DIR") or "bench") .. "/report.lua")

wrk.headers["Accept"] = "text/html,application/xhtml+xml"
wrk.headers["Accept-Encoding"] = "gzip, deflate, br"
