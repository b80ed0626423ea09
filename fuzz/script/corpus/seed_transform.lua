local e = rill.find("target")
e.Transform.translation = vec3(1, 2, 3)
rill.log(e.Transform)
