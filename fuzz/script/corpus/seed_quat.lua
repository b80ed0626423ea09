local q = quat.euler(0.1, 0.2, 0.3) * quat.axis_angle(vec3(0, 1, 0), 1)
local r = q:inverse():slerp(quat(), 0.25):normalized()
r.w = r:dot(q) + r:length()
local v = r * vec3(1, 2, 3)
assert(tostring(r):find('quat') and pcall(function() return q.v end) == false)
for e in rill.query("Transform") do local t = e.Transform t.rotation = t.rotation * r end
