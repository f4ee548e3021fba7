#!/usr/bin/env python3
"""Checks of the Grafana dashboards in deploy/grafana (standard library only).

  dashboard_check.py validate RUNBOOK DASHBOARD...
      Static checks: the JSON parses; Grafana schema 39 with a DS_PROMETHEUS input; unique panel ids;
      every panel has the Prometheus datasource and targets; every $variable used is defined (or a
      Grafana built-in); no hard-coded instance; every query is scoped by $instance; units of pause
      fractions and byte rates; the triage rows follow the runbook's steps; every dashboard and panel
      name the runbook mentions exists.

  dashboard_check.py query [--rows REGEX | --skip-rows REGEX] PROMETHEUS_URL INSTANCES TIMEOUT DASHBOARD...
      Runs every panel target (of the rows whose title matches --rows, or of every row but those
      matching --skip-rows: the InfiniBand rows need an InfiniBand node, tests/ibsim checks them) against PROMETHEUS_URL/api/v1/query with the template variables
      substituted (INSTANCES: comma-separated instance labels). A query must be accepted (status
      success) and return data; empty results are retried until TIMEOUT seconds have passed, since
      some findings need a few poll cycles. Prints one line per query.

Exit status: 0 all good, 1 a check failed, 2 bad usage.
"""
import json
import re
import sys
import time
import urllib.error
import urllib.parse
import urllib.request

# Grafana's global variables and the values the query check uses for them (a 1 s scrape interval
# and a short time range, so that ranges fit into the minute or two the test runs).
BUILTINS = {
    "__rate_interval": "1m", "__interval": "15s", "__interval_ms": "15000", "__range": "5m",
    "__range_s": "300", "__range_ms": "300000", "__from": "0", "__to": "0", "__dashboard": "",
    "__name": "", "__org": "", "__user": "",
}
PANEL_TYPES = {"row", "timeseries", "stat", "table", "heatmap"}
DS_UID = "${DS_PROMETHEUS}"
INSTANCE_QUERY = "label_values(fabricmon_build_info, instance)"
VAR_RE = re.compile(r"\$\{(\w+)(?::\w+)?\}|\[\[(\w+)(?::\w+)?\]\]|\$(\w+)")
HARD_INSTANCE_RE = re.compile(r'\binstance\s*(=~|!~|!=|=)\s*"([^"]*)"')


def var_names(text):
    return [a or b or c for a, b, c in VAR_RE.findall(text or "")]


def all_panels(dashboard):
    for p in dashboard.get("panels", []):
        yield p
        yield from p.get("panels", []) if p.get("type") == "row" else ()


def query_panels(dashboard):
    return [p for p in all_panels(dashboard) if p.get("type") != "row"]


def panels_by_row(dashboard):
    """(row title, panel) for every query panel; "" before the first row."""
    out, current = [], ""
    for p in dashboard.get("panels", []):
        if p.get("type") == "row":
            current = p.get("title", "")
            out += [(current, q) for q in p.get("panels", [])]
        else:
            out.append((current, p))
    return out


class Checker:
    def __init__(self):
        self.errors = []

    def fail(self, where, msg):
        self.errors.append(f"{where}: {msg}")

    def dashboard(self, path, d):
        where = path.rsplit("/", 1)[-1]
        if d.get("schemaVersion") != 39:
            self.fail(where, f"schemaVersion {d.get('schemaVersion')}, want 39")
        inputs = {i.get("name"): i for i in d.get("__inputs", [])}
        if inputs.get("DS_PROMETHEUS", {}).get("pluginId") != "prometheus":
            self.fail(where, "no __inputs entry DS_PROMETHEUS of plugin prometheus")
        if not d.get("title", "").startswith("fabricmon / ") or not d.get("uid"):
            self.fail(where, "title must start with 'fabricmon / ' and uid must be set")

        variables = d.get("templating", {}).get("list", [])
        defined = set()
        for v in variables:
            name = v.get("name", "")
            if not name or name in defined:
                self.fail(where, f"variable {name!r} unnamed or defined twice")
            q = v.get("query")
            qtext = q.get("query", "") if isinstance(q, dict) else (q or "")
            for used in var_names(qtext):
                if used not in defined and used not in BUILTINS:
                    self.fail(where, f"variable {name} uses ${used} before it is defined")
            if v.get("type") == "query" and (v.get("datasource") or {}).get("uid") != DS_UID:
                self.fail(where, f"variable {name} does not use the {DS_UID} datasource")
            defined.add(name)
        inst = next((v for v in variables if v.get("name") == "instance"), None)
        if inst is None:
            self.fail(where, "no instance variable")
        elif (inst.get("query") or {}).get("query") != INSTANCE_QUERY:
            self.fail(where, f"instance variable must be {INSTANCE_QUERY}")

        ids = [p.get("id") for p in all_panels(d)]
        dupes = {i for i in ids if ids.count(i) > 1}
        if dupes or None in ids:
            self.fail(where, f"panel ids not unique or missing: {sorted(map(str, dupes))}")
        for p in all_panels(d):
            self.panel(where, p, defined)

    def panel(self, where, p, defined):
        title = p.get("title", "")
        here = f"{where} / {title or p.get('id')}"
        if p.get("type") not in PANEL_TYPES:
            self.fail(here, f"panel type {p.get('type')} not one of {sorted(PANEL_TYPES)}")
        if not title or "gridPos" not in p:
            self.fail(here, "panel without title or gridPos")
        if p.get("type") == "row":
            return
        if not p.get("description"):
            self.fail(here, "no description")
        if (p.get("datasource") or {}).get("uid") != DS_UID:
            self.fail(here, f"panel datasource is not {DS_UID}")
        targets = p.get("targets") or []
        if not targets:
            self.fail(here, "no targets")
        refs = [t.get("refId") for t in targets]
        if len(set(refs)) != len(refs) or None in refs:
            self.fail(here, f"refIds not unique: {refs}")
        for used in var_names(title):
            if used not in defined and used not in BUILTINS:
                self.fail(here, f"title uses undefined ${used}")
        for t in targets:
            expr = t.get("expr", "")
            th = f"{here} [{t.get('refId')}]"
            if not expr.strip():
                self.fail(th, "empty expr")
            if (t.get("datasource") or {}).get("uid") != DS_UID:
                self.fail(th, f"target datasource is not {DS_UID}")
            for used in var_names(expr) + var_names(t.get("legendFormat", "")):
                if used not in defined and used not in BUILTINS:
                    self.fail(th, f"uses undefined variable ${used}")
            for op, value in HARD_INSTANCE_RE.findall(expr):
                if (op, value) != ("=~", "$instance"):
                    self.fail(th, f'hard-coded instance matcher instance{op}"{value}"')
            if re.search(r"\d+\.\d+\.\d+\.\d+|:\d{4,5}\b", expr):
                self.fail(th, "hard-coded address in expr")
            if '$instance' not in expr:
                self.fail(th, "query is not scoped to $instance")
        self.units(here, p, targets)

    def units(self, here, p, targets):
        exprs = [t.get("expr", "") for t in targets]
        unit = p.get("fieldConfig", {}).get("defaults", {}).get("unit")
        if p.get("type") == "heatmap":
            unit = p.get("options", {}).get("cellValues", {}).get("unit")
        fraction = bool(exprs) and all(("pause_fraction" in e and not e.lstrip().startswith("count")) for e in exprs)
        if fraction and unit != "percentunit":
            self.fail(here, f"pause fractions shown in unit {unit}, want percentunit")
        byte_rate = re.compile(r"_bytes:rate|rate\(fabricmon_\w*_bytes_total")
        # A ratio of byte rates (bit error rate, utilisation) is not a byte rate.
        if any(byte_rate.search(e) and "/" not in e for e in exprs) and unit != "Bps":
            self.fail(here, f"byte rates shown in unit {unit}, want Bps")

    def triage_rows(self, d, runbook_text):
        rows = [p.get("title", "") for p in d.get("panels", []) if p.get("type") == "row"]
        steps = [r for r in rows if r.startswith("Step ")]
        count = len(re.findall(r"^### Step \d+:", runbook_text, re.M))
        want = [f"Step {i}:" for i in range(1, count + 1)]
        if count == 0 or [s.split(" ", 2)[0] + " " + s.split(" ", 2)[1] for s in steps] != want:
            self.fail("triage", f"rows must be the runbook's {count} steps in order, got {rows}")

    def runbook(self, text, dashboards):
        by_title = {d["title"]: {p.get("title") for p in query_panels(d)} for d in dashboards}
        every = set().union(*by_title.values()) if by_title else set()
        for name in set(re.findall(r'"(fabricmon / [^"]+)"', text)):
            if name not in by_title:
                self.fail("runbook", f"dashboard {name!r} named in the runbook does not exist")
        for name in set(re.findall(r'\*\*"([^"]+)"\*\*', text)):
            if name not in every:
                self.fail("runbook", f"panel {name!r} named in the runbook is on no dashboard")
        section = text.split("## Dashboard panels referenced here", 1)
        if len(section) < 2:
            self.fail("runbook", "no 'Dashboard panels referenced here' section")
            return
        body = section[1].split("\n## ", 1)[0]
        listed = {}
        for item in re.split(r"\n- ", "\n" + body)[1:]:
            names = re.findall(r'"([^"]+)"', item.replace("\n  ", " "))
            if not names:
                continue
            dash, panels = names[0], names[1:]
            if "the same panels" in item and listed:
                panels += listed.get("fabricmon / Throughput-drop triage", [])
            listed[dash] = panels
            for panel in panels:
                if panel not in by_title.get(dash, set()):
                    self.fail("runbook", f"panel {panel!r} listed for {dash!r} is not on it")


def validate(runbook_path, paths):
    c = Checker()
    with open(runbook_path, encoding="utf-8") as f:
        runbook_text = f.read()
    dashboards = []
    for path in paths:
        try:
            with open(path, encoding="utf-8") as f:
                d = json.load(f)
        except (OSError, ValueError) as e:
            c.fail(path, f"does not parse: {e}")
            continue
        dashboards.append(d)
        c.dashboard(path, d)
        if "triage" in path:
            c.triage_rows(d, runbook_text)
    uids = [d.get("uid") for d in dashboards]
    if len(set(uids)) != len(uids):
        c.fail("dashboards", f"uids not unique: {uids}")
    c.runbook(runbook_text, dashboards)
    panels = sum(len(query_panels(d)) for d in dashboards)
    targets = sum(len(p.get("targets", [])) for d in dashboards for p in query_panels(d))
    for e in c.errors:
        print(f"FAIL {e}")
    print(f"validate: {len(dashboards)} dashboards, {panels} panels, {targets} queries, "
          f"{len(c.errors)} problems")
    return 1 if c.errors else 0


def regex_of(values):
    # What Grafana puts in for a multi-value variable in a regex matcher.
    escaped = [re.sub(r"([\\^$.|?*+()\[\]{}])", r"\\\1", v) for v in values]
    return escaped[0] if len(escaped) == 1 else "(" + "|".join(escaped) + ")"


def substitute(expr, values):
    def repl(m):
        name = m.group(1) or m.group(2) or m.group(3)
        return values.get(name, m.group(0))
    return VAR_RE.sub(repl, expr)


def variable_choices(d, instances):
    """Variable values to try: one dict per choice of the single-value variables."""
    base = dict(BUILTINS)
    singles = []
    for v in d.get("templating", {}).get("list", []):
        name = v["name"]
        if name == "instance":
            if v.get("multi") or v.get("includeAll"):
                base[name] = regex_of(instances)
            else:
                singles.append((name, [regex_of([i]) for i in instances]))
        elif v.get("includeAll") and v.get("allValue"):
            base[name] = v["allValue"]
        else:
            base[name] = ".*"
    choices = [base]
    for name, options in singles:
        choices = [dict(c, **{name: o}) for c in choices for o in options]
    return choices


def prom_query(url, expr):
    data = urllib.parse.urlencode({"query": expr}).encode()
    try:
        with urllib.request.urlopen(f"{url}/api/v1/query", data=data, timeout=10) as r:
            return json.load(r)
    except urllib.error.HTTPError as e:
        try:
            return json.load(e)
        except ValueError:
            return {"status": "error", "error": f"HTTP {e.code}"}
    except (OSError, ValueError) as e:
        return {"status": "error", "error": str(e)}


def summarise(result):
    values = []
    for s in result:
        v = s.get("value", [0, "NaN"])[1]
        try:
            values.append(float(v))
        except ValueError:
            pass
    return max(values) if values else float("nan")


# Series a short demo run cannot have, and why. Their queries must still run without error; they are
# not required to return data.
NO_DEMO_DATA = {
    # The median of the parts of a day (docs/rules.md, "link_ber", "optics_degraded"): the first
    # value comes hours after the start.
    "fabricmon_link_pre_fec_ber_baseline": "learned over hours",
    "fabricmon_port_pre_fec_ber_baseline": "learned over hours",
    # Only ports whose pre-FEC margin cannot be judged (docs/rules.md, "link_ber"): every port of
    # an mlx5 demo node has its FEC counters, InfiniBand included; `demo --vendor ionic` lists its
    # RoCE ports (tests/integration/scenario_test.cpp, LinkBerCoverageTest).
    "fabricmon_watchdog_link_ber_unjudged_info": "no unjudged port on an mlx5 demo node",
    "fabricmon_transceiver_rx_power_baseline_watts": "learned over hours",
    "fabricmon_transceiver_tx_power_baseline_watts": "learned over hours",
    # Only while a read of a NIC waits (docs/metrics.md): tests/integration/wedged_nic_test.cpp
    # hangs one for real, which a demo node cannot.
    "fabricmon_nic_read_wait_seconds": "only while a NIC read waits",
}


def no_demo_data(exprs):
    """Why the target's series cannot be on a demo node, or None."""
    for name, why in NO_DEMO_DATA.items():
        if any(name in e for e in exprs):
            return why
    return None


def query(url, instances, timeout, paths, rows=None, skip_rows=None):
    deadline = time.monotonic() + timeout
    jobs = []
    for path in paths:
        with open(path, encoding="utf-8") as f:
            d = json.load(f)
        choices = variable_choices(d, instances)
        for row, p in panels_by_row(d):
            if (rows and not re.search(rows, row)) or (skip_rows and re.search(skip_rows, row)):
                continue
            for t in p.get("targets", []):
                jobs.append({"dash": d["title"], "panel": p["title"], "ref": t["refId"],
                             "exprs": [substitute(t["expr"], c) for c in choices],
                             "status": None, "count": 0, "max": float("nan"), "error": ""})
    pending = jobs
    while True:
        for j in pending:
            j["count"], j["error"] = 0, ""
            for expr in j["exprs"]:
                r = prom_query(url, expr)
                j["status"] = r.get("status")
                if j["status"] != "success":
                    j["error"] = f"{r.get('errorType', '')} {r.get('error', '')} in {expr}"
                    break
                result = r["data"]["result"]
                if r["data"].get("resultType") == "scalar":
                    result = [{"value": result}]
                # Of several choices (a single-node dashboard tried on each node) keep the one that
                # shows the most: the largest value, then the most series.
                best = (j["max"] if j["count"] else float("-inf"), j["count"])
                mine = (summarise(result), len(result))
                if result and (mine[0] > best[0] or (mine[0] == best[0] and mine[1] > best[1])
                               or best[0] != best[0]):
                    j["count"], j["max"] = len(result), mine[0]
        pending = [j for j in jobs if j["status"] == "success" and j["count"] == 0
                   and not no_demo_data(j["exprs"])]
        if not pending or time.monotonic() >= deadline:
            break
        time.sleep(2)

    bad = 0
    for j in jobs:
        why = no_demo_data(j["exprs"])
        slow = j["status"] == "success" and j["count"] == 0 and why is not None
        ok = j["status"] == "success" and (j["count"] > 0 or slow)
        bad += not ok
        verdict = "ok  " if ok else "FAIL"
        detail = j["error"] or ("no data: " + j["exprs"][0] if not j["count"] else f"max {j['max']:.4g}")
        if slow:
            detail = f"no data on a demo node ({why}; the query runs): " + j["exprs"][0]
        print(f"{verdict} {j['dash']} | {j['panel']} [{j['ref']}]: {j['count']} series, {detail}")
    print(f"query: {len(jobs)} queries, {len(jobs) - bad} accepted with data, {bad} failed")
    return 1 if bad or not jobs else 0


def main(argv):
    if len(argv) >= 3 and argv[1] == "validate":
        return validate(argv[2], argv[3:])
    if len(argv) >= 2 and argv[1] == "query":
        args, rows, skip_rows = argv[2:], None, None
        while len(args) >= 2 and args[0] in ("--rows", "--skip-rows"):
            if args[0] == "--rows":
                rows = args[1]
            else:
                skip_rows = args[1]
            args = args[2:]
        if len(args) >= 4:
            return query(args[0].rstrip("/"), args[1].split(","), float(args[2]), args[3:], rows, skip_rows)
    print(__doc__, file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv))
