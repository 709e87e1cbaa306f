#!/usr/bin/python3
"""The baseline a Python user writes: replay an asciicast v3 capture into a pyte screen
and, every 50 ms of capture time, read the screen and apply the same first-match rules
(fixtures/manifests/claude.toml) with Python's re. Prints "seconds samples blocked".
Usage: /usr/bin/python3 bench/pyte_scraper.py CAPTURE.cast MANIFEST.toml"""
import json, re, sys, time, tomllib
import pyte

def rust_to_python(p):
    # The manifests' Rust syntax, as far as these rules need: \x{HHHH} and (?m) flags.
    return re.sub(r"\\x\{([0-9A-Fa-f]+)\}", lambda m: chr(int(m.group(1), 16)), p)

def load_rules(path):
    with open(path, "rb") as f:
        doc = tomllib.load(f)
    rules = []
    for r in doc["rules"]:
        if r.get("region", "whole_recent") != "whole_recent":
            continue  # title rules: pyte has no OSC title here
        rules.append((r["state"], [re.compile(rust_to_python(p)) for p in r.get("any", [])]))
    return rules

def classify(rules, text):
    for state, pats in rules:
        if any(p.search(text) for p in pats):
            return state
    return "idle"

def main():
    cast, manifest = sys.argv[1], sys.argv[2]
    rules = load_rules(manifest)
    t0 = time.perf_counter()
    with open(cast, encoding="utf-8") as f:
        header = json.loads(f.readline())
        screen = pyte.Screen(header["term"]["cols"], header["term"]["rows"])
        stream = pyte.ByteStream(screen)
        t, next_sample, samples, blocked = 0.0, 0.0, 0, 0
        for line in f:
            if not line.strip() or line.startswith("#"):
                continue
            ev = json.loads(line)
            t += ev[0]
            while next_sample < t:
                samples += 1
                if classify(rules, "\n".join(screen.display)) == "blocked":
                    blocked += 1
                next_sample += 0.05
            if ev[1] == "o":
                stream.feed(ev[2].encode("utf-8"))
    print(f"{time.perf_counter() - t0:.3f} {samples} {blocked}")

main()
