-- load-mix.lua: the wrk script of bench/load-test.sh.
--
-- Every request carries one cookie chosen at random from a file of
-- "CLASS KIND VALUE" lines (CLASS is valid, expired or forged; KIND names
-- the variant, e.g. mac-bitflip; VALUE "-" means no Cookie header at all),
-- weighted per class. The request also carries "X-Load-Tag: CLASS/KIND";
-- the server echoes it back in every answer, 401s included (mod_headers,
-- "Header always set X-Load-Tag expr=%{req:X-Load-Tag}"), because wrk's
-- response() callback cannot tell which of a thread's connections, and so
-- which request, an answer belongs to. Answers are counted per tag and
-- status; an answer without the tag is counted under "untagged/-".
--
-- Usage: wrk -s bench/load-mix.lua URL -- COOKIEFILE [WVALID WEXPIRED WFORGED]
-- (default weights 50 25 25). done() prints one line per (tag, status):
--     load-mix: CLASS KIND STATUS COUNT
-- The cookie file holds secrets: it is read here and never printed.
--
-- wrk runs each thread in its own Lua interpreter: the counts live in a
-- per-thread global table, and done() (run in the main interpreter) adds
-- up the threads' tables through the thread objects kept by setup().

local threads = {}

function setup(thread)
    table.insert(threads, thread)
    thread:set("id", #threads)
end

-- Per thread: the prepared requests of each class, and the counts.
local classes = { "valid", "expired", "forged" }
local prepared = {}
local cumulative = {}
local total_weight = 0

function init(args)
    local file = args[1]
    if file == nil then
        error("load-mix.lua: no cookie file (wrk ... -- COOKIEFILE)")
    end
    local weights = {
        valid = tonumber(args[2] or "50"),
        expired = tonumber(args[3] or "25"),
        forged = tonumber(args[4] or "25"),
    }
    for _, class in ipairs(classes) do
        prepared[class] = {}
    end
    local path = wrk.path
    for line in io.lines(file) do
        local class, kind, value = line:match("^(%S+) (%S+) (%S+)$")
        if class == nil or prepared[class] == nil then
            error("load-mix.lua: bad line in the cookie file")
        end
        local headers = { ["X-Load-Tag"] = class .. "/" .. kind }
        if value ~= "-" then
            headers["Cookie"] = "hsc=" .. value
        end
        table.insert(prepared[class], wrk.format("GET", path, headers))
    end
    for _, class in ipairs(classes) do
        local w = weights[class]
        if w == nil or w < 0 then
            error("load-mix.lua: weights are numbers >= 0")
        end
        if w > 0 then
            if #prepared[class] == 0 then
                error("load-mix.lua: no " .. class .. " cookie in the file")
            end
            total_weight = total_weight + w
            table.insert(cumulative, { total_weight, class })
        end
    end
    if total_weight == 0 then
        error("load-mix.lua: all weights are 0")
    end
    math.randomseed(os.time() * 1000 + (id or 0) * 7919)
    counts = {}
end

function request()
    local r = math.random() * total_weight
    local class = cumulative[#cumulative][2]
    for _, c in ipairs(cumulative) do
        if r < c[1] then
            class = c[2]
            break
        end
    end
    local list = prepared[class]
    return list[math.random(#list)]
end

function response(status, headers, body)
    local tag = headers["X-Load-Tag"] or headers["x-load-tag"] or "untagged/-"
    -- Flat keys: what thread:get() copies between interpreters.
    local key = tag .. " " .. status
    counts[key] = (counts[key] or 0) + 1
end

function done(summary, latency, requests)
    local total = {}
    for _, thread in ipairs(threads) do
        local t = thread:get("counts")
        if t ~= nil then
            for key, n in pairs(t) do
                total[key] = (total[key] or 0) + n
            end
        end
    end
    local keys = {}
    for key in pairs(total) do
        table.insert(keys, key)
    end
    table.sort(keys)
    for _, key in ipairs(keys) do
        local tag, status = key:match("^(%S+) (%S+)$")
        local class, kind = tag:match("^([^/]+)/(.*)$")
        io.write(string.format("load-mix: %s %s %s %d\n", class or tag,
                               kind ~= "" and kind or "-", status,
                               total[key]))
    end
end
