#!/usr/bin/env python3
"""Summarises `rill fly` runs: for each DIR given, from DIR/frames.jsonl (docs/cli.md keys), the
frames over 16.7 ms, the boot frame's parts, mean / p99 / max of the main-thread, extract, render,
GPU, streaming and batch-build times over frames 1.., draws and triangles, the mean GPU time of each
pass, the streaming work against its aim (stream_ms and stream_cpu_ms: p99, max and the frames over
4 ms, the 3 ms budget plus 1 ms, over every frame, frame 0 included, with the five largest), and
the five longest frames with what the batcher did in them and the main thread's page faults and
context switches (why wall time exceeded CPU time). Then the same per segment of the
path: --split F1,F2,... cuts it at those frames; else, where frames.jsonl has `camera`, a path that
climbs 100 m or more to its highest point is cut at the climb's start and top (`low`, `climb`, `top`:
the 100 km² world's crossing, climb and 500 m overview).
Usage: bench/fly/flysum.py [--split F1,F2,...] DIR [DIR ...]"""
import json
import statistics as st
import sys
def pct(v,p):
    v=sorted(v); return v[min(len(v)-1,int(p*len(v)))]
def climb_cuts(fr):
    """[start, top] of the climb to the path's highest point, or [] (no camera, no climb)."""
    if "camera" not in fr[-1]:
        return []
    y=[f["camera"][1] for f in fr]
    top=next(i for i,v in enumerate(y) if v>=max(y)-1.0)
    start=top
    while start>0 and y[start-1]<=y[start]:
        start-=1
    return [start,top] if start>0 and y[top]-y[start]>=100.0 else []
def segments(n,fr,cuts):
    bounds=[1]+[c for c in cuts if 1<c<len(fr)]+[len(fr)]
    names=["low","climb","top"] if len(bounds)==4 else ["part%d"%i for i in range(len(bounds)-1)]
    for name,a,b in zip(names,bounds,bounds[1:]):
        r=fr[a:b]
        if not r:
            continue
        def s(k):
            v=[f[k] for f in r]; return "%.2f/%.2f/%.2f"%(st.mean(v),pct(v,0.99),max(v))
        alt=("altitude %.0f..%.0f m "%(min(f["camera"][1] for f in r),max(f["camera"][1] for f in r))) if "camera" in r[0] else ""
        print("  segment %-6s frames %d..%d %sover16.7 %d main %s cpu %s extract_cpu %s stream_cpu %s gpu %s"%(name,a,b-1,alt,sum(1 for f in r if f["main_ms"]>16.7),s("main_ms"),s("main_cpu_ms"),s("extract_cpu_ms"),s("stream_cpu_ms"),s("gpu_ms")))
        sysk=sorted({k for f in r for k in f["systems_cpu"]})
        top=sorted(((st.mean(f["systems_cpu"].get(k,0) for f in r),k) for k in sysk),reverse=True)[:4]
        print("    systems_cpu mean", ", ".join("%s %.2f"%(k,v) for v,k in top), "| hlod_drawn mean %.0f extracted %.0f entities %.0f | triangles mean %.0f full %.0f gpu %.0f"%tuple(st.mean(f[k] for f in r) for k in ("hlod_drawn","extracted","entities","triangles","triangles_full","gpu_triangles")))
        for f in sorted(r,key=lambda f:-f["main_cpu_ms"])[:3]:
            at=(" at (%.0f, %.0f, %.0f)"%tuple(f["camera"])) if "camera" in f else ""
            big=sorted(f["systems_cpu"].items(),key=lambda kv:-kv[1])[:3]
            print("    most cpu frame %d%s main %.2f cpu %.2f extract_cpu %.2f"%(f["frame"],at,f["main_ms"],f["main_cpu_ms"],f["extract_cpu_ms"]),", ".join("%s %.2f"%kv for kv in big))
args=sys.argv[1:]
split=None
if len(args)>1 and args[0]=="--split":
    split=[int(x) for x in args[1].split(",") if x]
    args=args[2:]
for n in args:
    fr=[]
    for l in open(n+"/frames.jsonl"):
        try:
            fr.append(json.loads(l))
        except ValueError:
            print(n, "frame line %d unreadable (a run cut short): stopped there"%(len(fr)+1))
            break
    r=fr[1:]
    def s(k): 
        v=[f[k] for f in r]; return "%.2f/%.2f/%.2f"%(st.mean(v),pct(v,0.99),max(v))
    f0=fr[0]
    over=sum(1 for f in fr if f["main_ms"]>16.7)
    print(n, "frames",len(fr),"over16.7",over, "frame0 main %.2f app %.2f extract %.2f rcpu %.2f wait %.2f"%(f0["main_ms"],f0["app_ms"],f0["extract_ms"],f0["render_cpu_ms"],f0["render_wait_ms"]))
    for k in ("main_ms","main_cpu_ms","extract_ms","extract_cpu_ms","render_cpu_ms","render_wait_ms","gpu_ms","stream_ms","batch_build_ms"):
        print("  %-16s mean/p99/max %s"%(k,s(k)))
    print("  draws mean %.0f extracted %.0f tri %.0f gpu_tri %.0f batched max %d"%(st.mean(f["draws"] for f in r),st.mean(f["extracted"] for f in r),st.mean(f["triangles"] for f in r),st.mean(f["gpu_triangles"] for f in r),max(f["batched_entities"] for f in r)))
    for k in ("stream_ms","stream_cpu_ms"):
        v=[f[k] for f in fr]
        big=sorted(fr,key=lambda f:-f[k])[:5]
        print("  %-16s streaming p99 %.2f max %.2f over4ms %d of %d; largest %s"%(k,pct(v,0.99),max(v),sum(1 for x in v if x>4.0),len(v)," ".join("%d:%.2f"%(f["frame"],f[k]) for f in big)))
    keys=r[-1]["gpu_passes"].keys()
    print("  gpu passes mean", {k: round(st.mean(f["gpu_passes"].get(k,0) for f in r),3) for k in keys})
    worst=sorted(fr,key=lambda f:-f["main_ms"])[:5]
    for f in worst:
        print("   worst frame %d main %.2f cpu %.2f app %.2f extract %.2f ext_cpu %.2f rcpu %.2f wait %.2f build %.2f built %d taken %d faults %d waits %d preempts %d"%(f["frame"],f["main_ms"],f["main_cpu_ms"],f["app_ms"],f["extract_ms"],f["extract_cpu_ms"],f["render_cpu_ms"],f["render_wait_ms"],f["batch_build_ms"],f["batch_cells_built"],f.get("batch_taken_new",0),f.get("main_faults",0),f.get("main_waits",0),f.get("main_preempts",0)))
        if "extract_chunk_max_ms" in f:
            print("     blocked: main lock %.2f cond %.2f; extract lock %.2f cond %.2f; longest lock %.2f at %s, cond %.2f at %s; slowest chunk %.2f (cpu %.2f lock %.2f waits %d preempts %d faults %d worker %d)"%(f["main_lock_ms"],f["main_cond_ms"],f["extract_lock_ms"],f["extract_cond_ms"],f["lock_max_ms"],f["lock_max_at"],f["cond_max_ms"],f["cond_max_at"],f["extract_chunk_max_ms"],f["extract_chunk_cpu_ms"],f["extract_chunk_lock_ms"],f["extract_chunk_waits"],f["extract_chunk_preempts"],f["extract_chunk_faults"],f["extract_chunk_on_worker"]))
    cuts=split if split is not None else climb_cuts(fr)
    if cuts:
        segments(n,fr,cuts)
