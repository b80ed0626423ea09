local q = quat.euler(0.1, 0.2, 0.3) local v = q * vec3(1, 0, 0)
assert(math.abs(v:length() - 1) < 1e-6)
rill.emit("x", {v = v})
for e in rill.query("Transform") do e.name = "y" end
