-- wrk script of bench/web_bench.sh: sends the session cookie of
-- $BCN_COOKIE, counts answers that are not 200 and the report cache's
-- X-Beacon-Cache headers over all threads, and prints one JSON object
-- (case $BCN_CASE, figures in ms) when the run is done.
local threads = {}

wrk.headers["Cookie"] = "beacon_session=" .. (os.getenv("BCN_COOKIE") or "")

function setup(thread)
	table.insert(threads, thread)
end

function init(args)
	bad, hits, misses = 0, 0, 0
end

function response(status, headers, body)
	if status ~= 200 then
		bad = bad + 1
	end
	local c = headers["X-Beacon-Cache"]
	if c == "hit" then
		hits = hits + 1
	elseif c == "miss" then
		misses = misses + 1
	end
end

function done(summary, latency, requests)
	local b, h, m = 0, 0, 0
	for _, t in ipairs(threads) do
		b = b + t:get("bad")
		h = h + t:get("hits")
		m = m + t:get("misses")
	end
	local e = summary.errors
	io.write(string.format(
		'{"bench":"web","case":"%s","connections":%s,"requests":%d,' ..
		'"duration_s":%.2f,"requests_per_s":%.1f,"p50_ms":%.3f,' ..
		'"p90_ms":%.3f,"p99_ms":%.3f,"max_ms":%.3f,"non_200":%d,' ..
		'"socket_errors":%d,"cache_hits":%d,"cache_misses":%d%s}\n',
		os.getenv("BCN_CASE") or "?", os.getenv("BCN_CONNS") or "null",
		summary.requests, summary.duration / 1e6,
		summary.requests / (summary.duration / 1e6),
		latency:percentile(50) / 1e3, latency:percentile(90) / 1e3,
		latency:percentile(99) / 1e3, latency.max / 1e3, b,
		e.connect + e.read + e.write + e.timeout, h, m,
		os.getenv("BCN_EXTRA") or ""))
end
