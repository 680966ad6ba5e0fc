"""File ▸ Save scenario as…: a scenario written as a scenario file reads back as the same scenario
(every built-in, random settings of every key, rt-app scripts, awkward text), and runs the same."""

from __future__ import annotations

import dataclasses
import json
import random
import tomllib

import pytest

from model.cli.runs import run_once
from model.keyspec import KeySpec
from model.rtapp import parse_rtapp
from model.scenario import Scenario, ScenarioError, builtin_names, key_specs, load_scenario, parse_scenario
from model.scenario_toml import ALWAYS, scenario_toml


def read_back(scenario: Scenario) -> Scenario:
    text = scenario_toml(scenario, header="saved by a test\nsecond line")
    tomllib.loads(text)  # plain TOML, whatever reads it
    return parse_scenario(text, "saved.toml")


def as_saved(scenario: Scenario) -> Scenario:
    return dataclasses.replace(scenario, builtin="")  # a saved file is the user's: no built-in lesson


@pytest.mark.parametrize("name", builtin_names())
def test_every_built_in_story_reads_back_the_same(name: str) -> None:
    story = load_scenario(name)
    assert read_back(story) == as_saved(story)
    assert read_back(story).builtin == ""


def _a_value(spec: KeySpec, rng: random.Random) -> object:
    if spec.choices is not None:
        return rng.choice(list(spec.choices))
    if spec.type is bool:
        return rng.random() < 0.5
    if spec.type is float and spec.lo is not None and spec.hi is not None:
        return rng.choice([spec.lo, spec.hi, spec.lo + (spec.hi - spec.lo) * rng.random()])
    if spec.type is int and spec.lo is not None and spec.hi is not None:
        return rng.choice(
            [int(spec.lo), int(spec.hi), rng.randint(int(spec.lo), int(min(spec.hi, spec.lo + 100)))]
        )
    return None  # text and lists: the awkward-text and CPU-list tests below


@pytest.mark.parametrize("seed", range(40))
def test_random_settings_read_back_the_same(seed: int) -> None:
    rng = random.Random(seed)
    story = load_scenario(rng.choice(builtin_names()))
    specs = [s for s in key_specs().values() if not s.key.startswith("scenario.")]
    changed = 0
    for spec in rng.sample(specs, 12):
        value = _a_value(spec, rng)
        if value is None:
            continue
        try:
            story = story.with_overrides({spec.key: value})
            changed += 1
        except ScenarioError:
            continue  # a value another key rules out (a CPU list beyond machine.cpus)
    assert changed
    assert read_back(story) == as_saved(story)


def test_awkward_text_reads_back_the_same() -> None:
    story = load_scenario("yield-playground").with_overrides(
        {
            "scenario.title": 'quotes " and \\ backslash, ünïcode 😀 and a \\u escape',
            "scenario.description": 'line one\nline two with """ triple quotes\n\n\tand a tab',
            "scenario.name": "my-run_2",
            "machine.cpus": 3,
        }
    )
    assert read_back(story) == as_saved(story)


def test_rt_app_scripts_read_back_the_same_and_run_the_same() -> None:
    workload = {
        "global": {"duration": 1},
        "tasks": {
            "video": {"run": 3000, "timer": {"ref": "unique", "period": 16000, "mode": "absolute"}},
            "pair": {
                "instance": 2,
                "delay": 500,
                "phases": {
                    "p0": {"loop": 3, "lock": "m", "run": 500, "unlock": "m", "sleep": 2000},
                    "p1": {"runtime": 100, "barrier": "b", "yield": "", "signal": "c", "broadcast": "c"},
                    "p2": {"lock": "m", "wait": {"ref": "c", "mutex": "m"}, "unlock": "m", "sleep": 0,
                           "run": 10},
                },
            },
        },
    }  # fmt: skip
    story = parse_rtapp(json.dumps(workload), "w.json")
    saved = read_back(story)
    assert saved == as_saved(story)
    a, _ = run_once(story.with_overrides({"scenario.duration_s": 0.2}), None)
    b, _ = run_once(saved.with_overrides({"scenario.duration_s": 0.2}), None)
    assert a.summary()["threads"] == b.summary()["threads"]


def test_a_saved_file_names_only_what_differs_from_the_defaults() -> None:
    story = load_scenario("qdisc-fairness-2011")
    table = tomllib.loads(scenario_toml(story))
    written = {
        f"{section}.{k}": v for section, keys in table.items() if section != "tasks" for k, v in keys.items()
    }
    defaults = Scenario().settings()
    assert {"scenario.name", "scenario.duration_s", "scenario.seed", "sched.policy"} <= set(written)
    assert all(v != defaults[k] for k, v in written.items() if k not in ALWAYS), written
    assert {k for k, v in story.settings().items() if v != defaults[k]} <= set(written)
    assert "xmit.drv_ns" in written and [t["name"] for t in table["tasks"]] == ["sender"]
