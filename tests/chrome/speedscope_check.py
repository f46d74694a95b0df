#!/usr/bin/env python3
"""speedscope_check.py TRACECAT SCHEMA INPUT...: every INPUT converted with
--to speedscope (and all of them merged) validates against speedscope's
published JSON schema SCHEMA (file-format-schema.json of the npm package
`speedscope`), and holds what speedscope's importer needs beyond the schema:
frame indexes inside shared.frames, one weight per sample, evented profiles
whose C events close the innermost open frame in time order, and sampled
weights that sum to the folded writer's total.  Exit 77 (skipped) when SCHEMA
is missing: the npm step of .ci/run fetches it.

The validator takes the keywords the schema uses: $ref, type, const, enum,
required, properties, items, anyOf.
"""
import json
import os
import subprocess
import sys
import tempfile

TYPES = {"object": dict, "array": list, "string": str}


def validate(node, schema, root, path, errors):
    if len(errors) >= 20:
        return
    if "$ref" in schema:
        name = schema["$ref"].rsplit("/", 1)[1]
        return validate(node, root["definitions"][name], root, path, errors)
    if "anyOf" in schema:
        for alt in schema["anyOf"]:
            sub = []
            validate(node, alt, root, path, sub)
            if not sub:
                return
        return errors.append(f"{path}: matches none of anyOf")
    t = schema.get("type")
    if t == "number":
        if not isinstance(node, (int, float)) or isinstance(node, bool):
            return errors.append(f"{path}: not a number")
    elif t in TYPES and not isinstance(node, TYPES[t]):
        return errors.append(f"{path}: not a {t}")
    if "const" in schema and node != schema["const"]:
        errors.append(f"{path}: not {schema['const']!r}")
    if "enum" in schema and node not in schema["enum"]:
        errors.append(f"{path}: {node!r} not in {schema['enum']}")
    if isinstance(node, dict):
        for key in schema.get("required", []):
            if key not in node:
                errors.append(f"{path}: no {key}")
        for key, sub in schema.get("properties", {}).items():
            if key in node:
                validate(node[key], sub, root, f"{path}.{key}", errors)
    if isinstance(node, list) and "items" in schema:
        for i, item in enumerate(node):
            validate(item, schema["items"], root, f"{path}[{i}]", errors)


def semantics(doc, errors):
    n_frames = len(doc["shared"]["frames"])
    for p in doc["profiles"]:
        name = p["name"]
        if p["type"] == "sampled":
            if len(p["samples"]) != len(p["weights"]):
                errors.append(f"{name}: {len(p['samples'])} samples, {len(p['weights'])} weights")
            if any(not 0 <= f < n_frames for s in p["samples"] for f in s):
                errors.append(f"{name}: a frame index outside shared.frames")
            if sum(p["weights"]) != p["endValue"] - p["startValue"]:
                errors.append(f"{name}: weights do not sum to endValue - startValue")
            continue
        stack, at = [], p["startValue"]
        for ev in p["events"]:
            if not 0 <= ev["frame"] < n_frames:
                errors.append(f"{name}: frame {ev['frame']} outside shared.frames")
            if ev["at"] < at:
                errors.append(f"{name}: event at {ev['at']} before {at}")
            at = ev["at"]
            if ev["type"] == "O":
                stack.append(ev["frame"])
            elif not stack or stack.pop() != ev["frame"]:
                errors.append(f"{name}: C of frame {ev['frame']} is not the innermost open frame")
        if stack:
            errors.append(f"{name}: {len(stack)} frames left open")
        if at > p["endValue"]:
            errors.append(f"{name}: events after endValue")


def folded_total(tracecat, inputs, tmp):
    out = os.path.join(tmp, "out.folded")
    subprocess.run([tracecat, "convert", "-q", *inputs, "-o", out], check=True, stderr=subprocess.DEVNULL)
    with open(out, encoding="utf-8") as f:
        return sum(int(line.rsplit(" ", 1)[1]) for line in f)


def check(tracecat, schema, name, inputs, tmp):
    out = os.path.join(tmp, "out.speedscope")
    r = subprocess.run([tracecat, "convert", "-q", *inputs, "--to", "speedscope", "-o", out],
                       capture_output=True, text=True)
    if r.returncode != 0:
        return [f"{name}: convert failed: {r.stderr.strip()}"]
    with open(out, encoding="utf-8") as f:
        doc = json.load(f)
    errors = []
    validate(doc, {"$ref": "#/definitions/FileFormat.File"}, schema, "$", errors)
    if not errors:
        semantics(doc, errors)
        weights = sum(sum(p["weights"]) for p in doc["profiles"] if p["type"] == "sampled")
        want = folded_total(tracecat, inputs, tmp)
        if weights != want:
            errors.append(f"sampled weights {weights}, folded total {want}")
    kinds = [p["type"] for p in doc.get("profiles", [])]
    print(f"{name}: {kinds.count('evented')} evented, {kinds.count('sampled')} sampled profiles"
          + ("" if errors else ": ok"))
    return [f"{name}: {e}" for e in errors]


def main():
    tracecat, schema_path, inputs = sys.argv[1], sys.argv[2], sys.argv[3:]
    if not os.path.exists(schema_path):
        print(f"{schema_path}: missing (npm install --prefix build/speedscope speedscope): skipped")
        return 77
    with open(schema_path, encoding="utf-8") as f:
        schema = json.load(f)
    errors = []
    with tempfile.TemporaryDirectory() as tmp:
        for path in inputs:
            errors += check(tracecat, schema, path, [path], tmp)
        if len(inputs) > 1:
            errors += check(tracecat, schema, "(all merged)", inputs, tmp)
    for e in errors:
        print(e)
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main())
