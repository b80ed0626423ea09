#!/usr/bin/env python3
"""Summarises `rill fly` runs: for each DIR given, from DIR/frames.jsonl (docs/cli.md keys), the
frames over 16.7 ms, the boot frame's parts, mean / p99 / max of the main-thread, extract, render,
GPU, streaming and batch-build times over frames 1.., draws and triangles, the mean GPU time of each
pass, and the five longest frames with what the batcher did in them and the main thread's page
faults and context switches (why wall time exceeded CPU time).
Usage: bench/fly/flysum.py DIR [DIR ...]"""
import json
import statistics as st
import sys
def pct(v,p):
    v=sorted(v); return v[min(len(v)-1,int(p*len(v)))]
for n in sys.argv[1:]:
    fr=[json.loads(l) for l in open(n+"/frames.jsonl")]
    r=fr[1:]
    def s(k): 
        v=[f[k] for f in r]; return "%.2f/%.2f/%.2f"%(st.mean(v),pct(v,0.99),max(v))
    f0=fr[0]
    over=sum(1 for f in fr if f["main_ms"]>16.7)
    print(n, "frames",len(fr),"over16.7",over, "frame0 main %.2f app %.2f extract %.2f rcpu %.2f wait %.2f"%(f0["main_ms"],f0["app_ms"],f0["extract_ms"],f0["render_cpu_ms"],f0["render_wait_ms"]))
    for k in ("main_ms","main_cpu_ms","extract_ms","extract_cpu_ms","render_cpu_ms","render_wait_ms","gpu_ms","stream_ms","batch_build_ms"):
        print("  %-16s mean/p99/max %s"%(k,s(k)))
    print("  draws mean %.0f extracted %.0f tri %.0f gpu_tri %.0f batched max %d"%(st.mean(f["draws"] for f in r),st.mean(f["extracted"] for f in r),st.mean(f["triangles"] for f in r),st.mean(f["gpu_triangles"] for f in r),max(f["batched_entities"] for f in r)))
    keys=r[-1]["gpu_passes"].keys()
    print("  gpu passes mean", {k: round(st.mean(f["gpu_passes"].get(k,0) for f in r),3) for k in keys})
    worst=sorted(fr,key=lambda f:-f["main_ms"])[:5]
    for f in worst:
        print("   worst frame %d main %.2f cpu %.2f app %.2f extract %.2f ext_cpu %.2f rcpu %.2f wait %.2f build %.2f built %d taken %d faults %d waits %d preempts %d"%(f["frame"],f["main_ms"],f["main_cpu_ms"],f["app_ms"],f["extract_ms"],f["extract_cpu_ms"],f["render_cpu_ms"],f["render_wait_ms"],f["batch_build_ms"],f["batch_cells_built"],f.get("batch_taken_new",0),f.get("main_faults",0),f.get("main_waits",0),f.get("main_preempts",0)))
