local a, b = vec3(1, 2, 3), vec3(4, -5, 6)
local c = (a + b) * 2 - -a / 3
c.y = a:dot(b) + c:length() + a:distance(b)
local n = a:cross(b):normalized():lerp(vec3(), 0.5)
assert(tostring(n):find('vec3') and pcall(function() return a.w end) == false)
for e in rill.query("Transform") do local t = e.Transform t.translation = t.translation + c end
