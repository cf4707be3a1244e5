"""The rule reference in docs/ is generated from the registry and must not go stale."""

from conftest import PROJECT
from pytest_citations.frontends.cli import main, rules_reference


def test_rules_reference_is_current():
    written = (PROJECT / "docs" / "rules.md").read_text(encoding="utf-8")
    assert written == rules_reference(), "docs/rules.md is stale: run `citations rules --format markdown > docs/rules.md`"


def test_rule_command_prints_one_rule(capsys):
    assert main(["rule", "U104"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("# U104 normalized-url-mismatch\n")
    assert "## Why is this bad?" in out
    assert main(["rule", "duplicate-cid"]) == 0
    assert capsys.readouterr().out.startswith("# U113 duplicate-cid\n")


def test_rule_command_rejects_an_unknown_code(capsys):
    assert main(["rule", "U999"]) == 2
    assert "no rule 'U999'" in capsys.readouterr().err


def test_rules_command_lists_every_rule(capsys):
    assert main(["rules"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert any(line.startswith("C001     unreadable-file") for line in lines)
    assert any(line.startswith("U104 [*] normalized-url-mismatch") for line in lines)


def test_every_test_the_security_docs_cite_exists():
    """docs/security.md proves each row by the tests it names: a name no test has proves nothing."""
    import re

    cited = set(re.findall(r"`(?:[\w/]+\.py::)?(test_\w+)\b(?!\.py)", (PROJECT / "docs" / "security.md").read_text(encoding="utf-8")))
    defined = {name for path in (PROJECT / "tests").rglob("test_*.py")
               for name in re.findall(r"^\s*def (test_\w+)", path.read_text(encoding="utf-8"), re.M)}
    assert len(cited) > 100 and sorted(cited - defined) == []
