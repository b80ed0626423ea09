-- saved by a Windows editor
local v = vec3(1, 2, 3)
assert(v.y == 2)
