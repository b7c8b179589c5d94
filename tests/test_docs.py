"""Every public name of the package shows itself at work: a ``>>>`` example in its docstring.

A public name is a module-level function or class whose name does not start with ``_``; a
class counts when its own docstring or one of its methods' has the example.  pytest runs
every example (``--doctest-modules``), so the examples stay true.  `NOT_YET` lists the names
still without one; it can only shrink: a listed name that gains an example, or that no longer
exists, fails the test until it is taken off the list.
"""

from __future__ import annotations

import ast
from pathlib import Path

SRC = Path(__file__).resolve().parents[1] / "src" / "callbreak"

#: public names without an example yet, as "module:name"
NOT_YET: frozenset[str] = frozenset(
    {
        # In modules other helpers were editing during the documentation session (#17):
        # the lead empties this part after merging that session's other branches.
        "callbreak.bots.calling:CallModel",
        "callbreak.bots.calling:family_of",
        "callbreak.bots.calling:hand_mask",
        "callbreak.bots.calling:call_position",
        "callbreak.bots.calling:earlier_calls",
        "callbreak.bots.calling:trick_distribution",
        "callbreak.bots.calling:win_value",
        "callbreak.bots.calling:call_values",
        "callbreak.bots.calling:made_chance",
        "callbreak.bots.calling:best_call",
        "callbreak.bots.evaluation:Evaluator",
        "callbreak.bots.evaluation:option_values",
        "callbreak.bots.hard:call_order",
        "callbreak.bots.hard:sample_deals",
        "callbreak.bots.hard:tricks_so_far",
        "callbreak.bots.hard:play_record",
        "callbreak.bots.hard:consistent_deals",
        "callbreak.bots.hard:call_ranges",
        "callbreak.bots.hard:refine_deals",
        "callbreak.bots.hard:search_values",
        "callbreak.bots.hard:public_cannot",
        "callbreak.bots.kernel.core:rules_array",
        "callbreak.bots.kernel.core:legal_mask",
        "callbreak.bots.kernel.core:trick_winner",
        "callbreak.bots.kernel.core:random_playouts",
        "callbreak.bots.kernel.core:random_rollout",
        "callbreak.bots.kernel.dd:dd_table",
        "callbreak.bots.kernel.dd:dd_reach",
        "callbreak.bots.kernel.deals:sample_deals",
        "callbreak.bots.kernel.inference:mismatches",
        "callbreak.bots.kernel.inference:refine",
        "callbreak.bots.kernel.medium:medium_card",
        "callbreak.bots.kernel.search:search",
        "callbreak.bots.kernel.search:call_search",
        "callbreak.bots.kernel.solve:solve",
        "callbreak.cli:build_parser",
        "callbreak.cli:main",
        "callbreak.server.autopilot:table_bot",
        "callbreak.server.autopilot:safe_act",
        "callbreak.server.autopilot:Autopilot",
        "callbreak.server.botpool:decide",
        "callbreak.server.botpool:BotPool",
        "callbreak.server.cluster:Cluster",
        "callbreak.server.hub:Hub",
        "callbreak.server.live:dumps",
        "callbreak.server.live:LiveTable",
        "callbreak.server.metrics:PromMeter",
        "callbreak.server.router:ClusterRouter",
        "callbreak.server.router:clustered",
        "callbreak.server.sockets:header_timeout_protocol",
        "callbreak.server.workers:supervise",
        # Not reached by the documentation session's deadline: the next one takes these.
        "callbreak.analysis.engine:analyse_decision",
        "callbreak.analysis.engine:count_decisions",
        "callbreak.analysis.engine:analyse",
        "callbreak.analysis.engine:analyse_deal",
        "callbreak.analysis.engine:assemble",
        "callbreak.analysis.engine:summarise",
        "callbreak.analysis.hindsight:DoubleDummy",
        "callbreak.analysis.practice:practice_rules",
        "callbreak.analysis.practice:position_of",
        "callbreak.analysis.practice:start_position",
        "callbreak.analysis.practice:practice_match",
        "callbreak.analysis.records:Option",
        "callbreak.analysis.records:Decision",
        "callbreak.analysis.records:PlayerSummary",
        "callbreak.analysis.records:Analysis",
        "callbreak.analysis.report:render",
        "callbreak.analysis.report:tables",
        "callbreak.analysis.sources:load_match",
        "callbreak.arena.check:CheckResult",
        "callbreak.arena.check:CheckReport",
        "callbreak.arena.check:sample_positions",
        "callbreak.arena.check:check_bot",
        "callbreak.arena.ratings:load_ratings",
        "callbreak.arena.ratings:update_ratings",
        "callbreak.arena.runner:seat_bot",
        "callbreak.arena.runner:Task",
        "callbreak.arena.runner:MatchRecord",
        "callbreak.arena.runner:play_match",
        "callbreak.arena.runner:RunResult",
        "callbreak.arena.runner:run_arena",
        "callbreak.arena.summary:BotSummary",
        "callbreak.arena.summary:Summary",
        "callbreak.arena.summary:rules_label",
        "callbreak.arena.summary:summarize",
        "callbreak.bots.cachedir:configure_cache",
        "callbreak.bots.hints:hint",
        "callbreak.bots.train_calls:fit",
        "callbreak.bots.train_calls:main",
        "callbreak.bots.warmup:exercise",
        "callbreak.bots.warmup:main",
        "callbreak.commands.analyse:register",
        "callbreak.commands.analyse:run",
        "callbreak.commands.arena:register",
        "callbreak.commands.arena:run",
        "callbreak.commands.bot:register",
        "callbreak.commands.bot:run_serve",
        "callbreak.commands.bot:run_check",
        "callbreak.commands.play:register",
        "callbreak.commands.play:run",
        "callbreak.commands.replay:register",
        "callbreak.commands.replay:render",
        "callbreak.commands.replay:run",
        "callbreak.commands.score:register",
        "callbreak.commands.score:sheet_table",
        "callbreak.commands.score:run",
        "callbreak.commands.serve:register",
        "callbreak.commands.serve:run",
        "callbreak.commands.serve:tune_gc",
        "callbreak.commands.warmup:register",
        "callbreak.commands.warmup:run",
        "callbreak.env.batched:score_tenths",
        "callbreak.env.batched:Finished",
        "callbreak.env.callbreak_v0:ruleset_of",
        "callbreak.env.callbreak_v0:match_for",
        "callbreak.env.callbreak_v0:env",
        "callbreak.env.callbreak_v0:raw_env",
        "callbreak.env.observation:observe",
        "callbreak.env.observation:mask",
        "callbreak.env.openspiel:info_state_size",
        "callbreak.env.openspiel:CallbreakGame",
        "callbreak.env.openspiel:CallbreakState",
        "callbreak.env.openspiel:CallbreakObserver",
        "callbreak.env.single:CallbreakEnv",
        "callbreak.env.text:render_text",
        "callbreak.env.train:initial",
        "callbreak.env.train:features",
        "callbreak.env.train:Result",
        "callbreak.env.train:train",
        "callbreak.env.train:save",
        "callbreak.env.train:PolicyBot",
        "callbreak.env.train:evaluate_batched",
        "callbreak.env.train:evaluate",
        "callbreak.env.train:main",
        "callbreak.extras:MissingExtra",
        "callbreak.extras:missing",
        "callbreak.i18n:Translate",
        "callbreak.i18n:catalogue",
        "callbreak.i18n:placeholders",
        "callbreak.i18n:translator",
        "callbreak.i18n:language_from_env",
        "callbreak.remote.client:Fault",
        "callbreak.remote.client:RemoteBot",
        "callbreak.remote.codec:view_to_request",
        "callbreak.remote.codec:ParsedRequest",
        "callbreak.remote.server:set_time_limit",
        "callbreak.remote.server:BotService",
        "callbreak.remote.server:BotServer",
        "callbreak.server.broker_redis:RedisBroker",
        "callbreak.tui.analysis_screen:AnalysisScreen",
        "callbreak.tui.app:load_hint",
        "callbreak.tui.app:LocalOptions",
        "callbreak.tui.app:HelpScreen",
        "callbreak.tui.app:SummaryScreen",
        "callbreak.tui.app:SetupScreen",
        "callbreak.tui.app:HandView",
        "callbreak.tui.app:TableScreen",
        "callbreak.tui.app:CallbreakApp",
        "callbreak.tui.game:RoundSummary",
        "callbreak.tui.game:TableModel",
        "callbreak.tui.game:Game",
        "callbreak.tui.game:summaries_of",
        "callbreak.tui.game:LocalGame",
        "callbreak.tui.game:model_with",
        "callbreak.tui.online:JoinTarget",
        "callbreak.tui.online:OnlineGame",
        "callbreak.tui.render:card_text",
        "callbreak.tui.render:card_face",
        "callbreak.tui.render:position_of",
        "callbreak.tui.render:header_text",
        "callbreak.tui.render:card_block",
        "callbreak.tui.render:table_renderable",
        "callbreak.tui.render:hand_text",
        "callbreak.tui.render:scores_renderable",
        "callbreak.tui.render:summary_table",
        "callbreak.tui.render:match_result",
        "callbreak.tui.render:places_table",
        "callbreak.tui.screenshot:advance",
        "callbreak.tui.screenshot:save",
        "callbreak.tui.words:use",
        "callbreak.tui.words:current",
        "callbreak.tui.words:tr",
    }
)


def _has_example(node: ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef) -> bool:
    if ">>>" in (ast.get_docstring(node, clean=False) or ""):
        return True
    return isinstance(node, ast.ClassDef) and any(
        isinstance(n, ast.FunctionDef | ast.AsyncFunctionDef)
        and ">>>" in (ast.get_docstring(n, clean=False) or "")
        for n in node.body
    )


def public_names() -> dict[str, bool]:
    """Every public module-level function and class, as "module:name", and whether it has an example."""
    out: dict[str, bool] = {}
    for path in sorted(SRC.rglob("*.py")):
        parts = path.relative_to(SRC.parent).with_suffix("").parts
        module = ".".join(parts[:-1] if parts[-1] == "__init__" else parts)
        for node in ast.parse(path.read_text(encoding="utf-8")).body:
            if isinstance(
                node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef
            ) and not node.name.startswith("_"):
                out[f"{module}:{node.name}"] = _has_example(node)
    return out


def test_every_public_name_has_an_example() -> None:
    names = public_names()
    missing = sorted(n for n, ok in names.items() if not ok and n not in NOT_YET)
    assert not missing, f"{len(missing)} public names without a >>> example:\n" + "\n".join(missing)


def test_not_yet_only_shrinks() -> None:
    names = public_names()
    gone = sorted(n for n in NOT_YET if n not in names)
    done = sorted(n for n in NOT_YET if names.get(n))
    assert not gone, "names in NOT_YET that no longer exist (take them off):\n" + "\n".join(gone)
    assert not done, "names in NOT_YET that have an example now (take them off):\n" + "\n".join(done)


def test_the_walk_finds_the_names() -> None:
    names = public_names()
    assert names["callbreak.server.protocol:parse"] is True
    assert "callbreak.server:create_app" in names
    assert not any(n.split(":")[1].startswith("_") for n in names)
