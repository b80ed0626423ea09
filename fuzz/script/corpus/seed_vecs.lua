local a, b = vec2(1, 2), vec2(3, -4)
local c = color(1, 0.5, 0.25) * 0.5 + {r = 0, g = 0, b = 0, a = 0.5}
local v = vec4(1, 2, 3, 4):lerp(vec4(), 0.5) / 2
c.x = a:dot(b) + v:length() + a:distance(b) c.a = -c.g
assert(tostring(c):find('color') and pcall(function() return a.z end) == false)
for e in rill.query("Camera") do local k = e.Camera k.clear_color = c k.viewport = v:normalized() end
