"""The commands by name, each with its module of chipcost.cli.commands, the options renamed
away from a spelling another command takes and the old spellings of values: what chipcost.cli.
parser and docs/cli.md's tables (chipcost.cli.spellings) read."""

# Every command by name, and the module of chipcost.cli.commands that declares it (as the
# attribute of its name, dashes as underscores), in the order `chipcost --help` lists them.
COMMANDS = {
    "collect": "collect", "prices": "prices", "history": "history", "index": "price_index",
    "sql": "admin", "cost": "cost", "compare": "compare", "report": "report", "site": "site",
    "export": "export", "backfill": "backfill", "migrate": "admin", "sources": "admin",
    "remove-run": "admin", "demo": "demo", "throughput": "throughput", "measure": "measure",
}  # fmt: skip
# Options renamed whose old spelling is another command's option, so not taken: a refusal
# names the new one (`prices --chips 8` is `--chip-count 8`; `measure --chips` is the chips
# serving the endpoint, `collect --source` a source id, `prices --per` hour, month or year).
RENAMED = {
    ("prices", "--chips"): "--chip-count",
    ("throughput add", "--chips"): "--chip-count",
    ("throughput add", "--per"): "--figure-per",
    ("throughput add", "--source"): "--citation",
    ("throughput model", "--source"): "--citation",
}
# Old spellings of values (not options), taken for one release with the same note.
OLD_VALUES = (
    ("`index --pricing-model 1yr`", "`index --pricing-model commitment` (term `1yr`)"),
    ("explorer address `model=spot`, `tokens=MODEL|WORKLOAD`, `cols=...pricing`",
     "`pricing_model=spot`, `model=MODEL|WORKLOAD`, `cols=...offer_label`"),
)  # fmt: skip
