-- cookies.lua: the wrk script of bench/users-bench.sh.
--
-- Every request carries a Cookie header picked from the first N lines of a
-- file of "hsc=<value>" lines (bench_users writes it): at random per
-- request, or in file order with "seq" (to warm a cache with every user
-- once). N = 0 sends no Cookie header, so every row of the bench pays the
-- same script cost.
--
-- A fourth argument "Name: value" adds that header to every request (the
-- X-Original-URL a proxy sends hsc-authz). A line of the file that reads
-- "Authorization: ..." is sent as that header instead of a Cookie (the
-- app-password rows: bench_users' HSC_BENCH_TOKENS files).
--
-- Usage: wrk -s bench/cookies.lua URL -- COOKIEFILE N [random|seq] [HEADER]

local cookies = {}
local n = 0
local seq = false
local i = 0

local extra_name, extra_value = nil, nil

function init(args)
    local file, count, mode = args[1], tonumber(args[2] or "0"), args[3]
    if args[4] then
        extra_name, extra_value = args[4]:match("^([^:]+):%s*(.*)$")
    end
    seq = (mode == "seq")
    if count > 0 then
        local f = assert(io.open(file, "r"))
        for line in f:lines() do
            n = n + 1
            cookies[n] = line
            if n >= count then break end
        end
        f:close()
        if n < count then
            error("cookies.lua: " .. file .. " has only " .. n .. " lines")
        end
    end
    -- Another sequence per wrk thread and run.
    math.randomseed(os.time() + n)
    i = math.random(n > 0 and n or 1) - 1
end

function request()
    if n == 0 then
        return wrk.format(nil, nil, nil)
    end
    if seq then
        i = i % n + 1
    else
        i = math.random(n)
    end
    local line = cookies[i]
    local headers = {}
    if line:sub(1, 15) == "Authorization: " then
        headers["Authorization"] = line:sub(16)
    else
        headers["Cookie"] = line
    end
    if extra_name then
        headers[extra_name] = extra_value
    end
    return wrk.format(nil, nil, headers)
end
