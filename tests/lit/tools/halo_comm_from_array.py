"""Writes a copy of an SDFG whose HaloExchange node `halo_f` reads its communicator connector
`_comm` from the array `f` instead of an integer scalar (tests/lit/codegen/halo-exchange-comm-connector.test).
Usage: halo_comm_from_array.py IN.sdfg OUT.sdfg"""
import copy
import json
import sys

sdfg = json.load(open(sys.argv[1]))
for state in sdfg["nodes"]:
    for node in state["nodes"]:
        if node["type"] != "HaloExchange":
            continue
        node["attributes"]["in_connectors"]["_comm"] = None
        edge = next(e for e in state["edges"] if e["dst"] == str(node["id"]) and e["dst_connector"] == "_in")
        comm = copy.deepcopy(edge)
        comm["dst_connector"] = "_comm"
        state["edges"].append(comm)
json.dump(sdfg, open(sys.argv[2], "w"))
