local t = {} for i = 1, 100 do t[i] = vec3(i, 0, 0):cross(vec3(0, 1, 0)) end
rill.after(0, function() rill.spawn{name = "x", Transform = {translation = t[5]}} end)
