"""Shared I/O of the reference scripts: `python3 <example>.py PROGRAM INDIR OUTDIR` reads every
argument of the program from INDIR (<name>.npy for arrays, scalars.json for scalars and
symbols), computes the expected outputs with plain NumPy and writes OUTDIR/<name>.npy."""
import json
import os
import sys

import numpy as np


def main(programs):
    program, indir, outdir = sys.argv[1], sys.argv[2], sys.argv[3]
    args = {}
    for f in os.listdir(indir):
        if f.endswith(".npy"):
            args[f[:-4]] = np.load(os.path.join(indir, f))
    with open(os.path.join(indir, "scalars.json")) as f:
        args.update(json.load(f))
    out = programs[program](args)
    os.makedirs(outdir, exist_ok=True)
    for name, value in out.items():
        np.save(os.path.join(outdir, name + ".npy"), value)

