"""For every rule: files that break it (and where it must point) and files that keep it.

A case's ``fail`` files must produce exactly the findings ``at`` (file, line, column) under
the rule's id; its ``ok`` files none under that id. The registry test checks that every
registered rule has a case here.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from .helpers import Files, zip_bytes

OK = """\
heat_template_version: 2021-04-16
description: ok
parameters:
  name:
    type: string
    description: a name
resources:
  value:
    type: OS::Heat::Value
    properties:
      value: {get_param: name}
outputs:
  out:
    value: {get_attr: [value, value]}
"""

OK_ENV = """\
parameters:
  name: hello
"""


@dataclass(frozen=True)
class Case:
    rule: str
    fail: Files
    at: list[tuple[str, int, int]]
    ok: Files = field(default_factory=lambda: {"t.yaml": OK})
    profiles: tuple[str, ...] = ("default",)
    explicit: bool = False  # lint the files themselves, not their directory
    max_bytes: int | None = None
    zip: bool = False
    name: str = ""

    @property
    def id(self) -> str:
        return f"{self.rule}-{self.name}" if self.name else self.rule


ROLE_REGISTRY = "resource_registry:\n  My::Role: [a.yaml, b.yaml]\n"


def hot(body: str, version: str = "2021-04-16") -> str:
    """A template: the version line, then ``body`` (so its lines start at line 2)."""
    return f"heat_template_version: {version}\n{body}"


DEFAULT_CASES: list[Case] = [
    # ------------------------------------------------------------------ loading
    Case(
        "E0000",
        {"t.yaml": "heat_template_version: 2021-04-16\nresources: [a, b\n"},
        [("t.yaml", 3, 1)],
    ),
    Case(
        "E0001",
        {"t.yaml": b"heat_template_version: 2021-04-16\ndescription: caf\xe9\n"},
        [("t.yaml", 2, 17)],
    ),
    Case(
        "E0002",
        {"t.yaml": OK + "# " + "x" * 400 + "\n"},
        [("t.yaml", 1, 1)],
        ok={"t.yaml": OK},
        max_bytes=400,
    ),
    Case(
        "E0003",
        {"t.yaml": hot("description: one\ndescription: two\n")},
        [("t.yaml", 3, 1)],
    ),
    Case(
        "E0004",
        {"t.yaml": hot("description: " + "[" * 101 + "]" * 101 + "\n")},
        [("t.yaml", 2, 114)],
    ),
    Case(
        "E0006",
        {
            "t.yaml": hot(
                "resources:\n  r:\n    type: OS::Heat::Value\n    properties:\n"
                "      value:\n        repeat:\n          template: '%a%%b%%c%%d%%e%'\n"
                "          for_each:\n            '%a%': &l ["
                + ", ".join(f"v{i}" for i in range(100))
                + "]\n"
                + "".join(f"            '%{k}%': *l\n" for k in "bcde")
            )
        },
        [("t.yaml", 7, 9)],
    ),
    Case(
        "E0005",
        {"t.yaml": "- heat_template_version\n- 2021-04-16\n"},
        [("t.yaml", 1, 1)],
        explicit=True,
    ),
    # ------------------------------------------------------------------ structure
    Case("E1001", {"t.yaml": "description: no version\nresources: {}\n"}, [("t.yaml", 1, 1)]),
    Case("E1002", {"t.yaml": hot("description: x\nmappings: {}\n")}, [("t.yaml", 3, 1)]),
    Case("E1003", {"t.yaml": hot("description: x\noutputs: [a]\n")}, [("t.yaml", 3, 10)]),
    Case(
        "E1010",
        {
            "t.yaml": hot(
                "description: x\nresources:\n  r:\n    type: OS::Heat::None\n    typo: 1\n"
            )
        },
        [("t.yaml", 6, 5)],
    ),
    Case(
        "E1011",
        {"t.yaml": hot("description: x\noutputs:\n  o:\n    description: no value\n")},
        [("t.yaml", 4, 3)],
    ),
    Case(
        "E1012",
        {"t.yaml": hot("description: x\nresources:\n  a/b:\n    type: OS::Heat::None\n")},
        [("t.yaml", 4, 3)],
    ),
    Case(
        "W1004",
        {"t.yaml": OK.replace("description: ok\n", "description: ok\ncapabilities:\n  role: db\n")},
        [("t.yaml", 3, 1)],
    ),
    Case(
        "E1005",
        {
            "t.yaml": OK.replace(
                "description: ok\n", "description: ok\ncapabilities:\n  role: {a: 1}\n"
            )
        },
        [("t.yaml", 4, 9)],
        ok={
            "t.yaml": OK.replace(
                "description: ok\n", "description: ok\ncapabilities:\n  role: [a, b]\n"
            )
        },
    ),
    # ------------------------------------------------------------------ parameters
    Case(
        "E1020",
        {"t.yaml": OK.replace("    type: string\n", "    type: text\n")},
        [("t.yaml", 5, 11)],
    ),
    Case(
        "E1021",
        {
            "t.yaml": OK.replace(
                "    description: a name\n",
                "    description: a name\n    constraints:\n      - length: {max: 3}\n",
            ),
            "t.env": OK_ENV,
        },
        [("t.yaml", 4, 3)],
        ok={"t.yaml": OK, "t.env": OK_ENV},
    ),
    Case(
        "E1022",
        {
            "t.yaml": OK.replace(
                "parameters:\n", "parameter_groups:\n  - parameters: [nope]\nparameters:\n"
            )
        },
        [("t.yaml", 4, 18)],
    ),
    Case(
        "E1023",
        {"t.yaml": OK, "t.env": OK_ENV + "  other: 1\n"},
        [("t.env", 3, 10)],
        ok={"t.yaml": OK, "t.env": OK_ENV},
    ),
    Case(
        "I1024",
        {
            "t.yaml": hot(
                "description: x\nresources:\n  s:\n    type: OS::Nova::Server\n"
                "    properties:\n      flavor: m1.small\n"
            )
        },
        [("t.yaml", 7, 15)],
        ok={
            "t.yaml": hot(
                "description: x\nparameters:\n  f:\n    type: string\n    description: f\n"
                "resources:\n  s:\n    type: OS::Nova::Server\n"
                "    properties:\n      flavor: {get_param: f}\n"
            )
        },
    ),
    # ------------------------------------------------------------------ functions
    Case(
        "E1030",
        {"t.yaml": OK.replace("{get_attr: [value, value]}", "{get_attr: value}")},
        [("t.yaml", 14, 13)],
    ),
    Case(
        "E1031",
        {"t.yaml": OK.replace("{get_attr: [value, value]}", "{get_resource: nothing}")},
        [("t.yaml", 14, 13)],
    ),
    Case(
        "E1032",
        {"t.yaml": OK.replace("{get_param: name}", "{get_param: nothing}")},
        [("t.yaml", 11, 15)],
    ),
    Case(
        "E1033",
        {"t.yaml": OK.replace("{get_param: name}", "{Fn::Join: ['', [a, b]]}")},
        [("t.yaml", 11, 15)],
    ),
    Case(
        "E1034",
        {
            "t.yaml": OK.replace(
                "resources:\n", "conditions:\n  c: {get_resource: value}\nresources:\n"
            )
        },
        [("t.yaml", 8, 7)],
    ),
    Case(
        "E1035",
        {"t.yaml": OK.replace("{get_param: name}", "{get_file: missing.txt}")},
        [("t.yaml", 11, 15)],
        ok={"t.yaml": OK.replace("{get_param: name}", "{get_file: here.txt}"), "here.txt": "x"},
    ),
    Case(
        "W1036",
        {
            "t.yaml": OK.replace("2021-04-16", "2015-04-30").replace(
                "{get_param: name}", "{if: [c, a, b]}"
            )
        },
        [("t.yaml", 11, 15)],
        ok={"t.yaml": OK.replace("{get_param: name}", "{if: [true, {get_param: name}, b]}")},
    ),
    Case(
        "E1037",
        {"t.yaml": OK.replace("[value, value]", "[value, valu]")},
        [("t.yaml", 14, 31)],
    ),
    Case(
        "E1038",
        {
            "t.yaml": OK.replace(
                "{get_param: name}", "{str_replace_strict: {template: abc, params: {x: y}}}"
            )
        },
        [("t.yaml", 11, 15)],
    ),
    Case(
        "W1039",
        {"t.yaml": OK.replace("{get_param: name}", "{get_parm: name}")},
        [("t.yaml", 11, 15)],
    ),
    # ------------------------------------------------------------------ graph
    Case(
        "E1040",
        {
            "t.yaml": OK.replace(
                "    type: OS::Heat::Value\n", "    type: OS::Heat::Value\n    condition: nope\n"
            )
        },
        [("t.yaml", 10, 16)],
    ),
    Case(
        "E1050",
        {
            "t.yaml": hot(
                "description: x\nresources:\n  a:\n    type: OS::Heat::None\n    depends_on: b\n"
                "  b:\n    type: OS::Heat::None\n    depends_on: a\n"
            )
        },
        [("t.yaml", 4, 3)],
    ),
    Case(
        "E1051",
        {
            "t.yaml": OK.replace(
                "    type: OS::Heat::Value\n",
                "    type: OS::Heat::Value\n    depends_on: [ghost]\n",
            )
        },
        [("t.yaml", 10, 18)],
    ),
    # ------------------------------------------------------------------ environments, files
    Case(
        "E1060",
        {"t.yaml": OK, "t.env": OK_ENV + "resource_registry: {}\nparamters: {}\n"},
        [("t.env", 4, 1)],
        ok={"t.yaml": OK, "t.env": OK_ENV + "resource_registry: {}\n"},
    ),
    Case(
        "E1062",
        {
            "t.yaml": hot("description: x\nresources:\n  r:\n    type: My::Role\n"),
            "t.env": "requires: {deployment: chef}\n" + ROLE_REGISTRY,
            "a.yaml": "heat_template_version: 2016-04-08\ncapabilities: {deployment: puppet}\n",
            "b.yaml": "heat_template_version: 2016-04-08\ncapabilities: {deployment: docker}\n",
        },
        [("t.env", 3, 3)],
        ok={
            "t.yaml": hot(
                "description: x\nresources:\n  r:\n    type: My::Role\n"
                "outputs:\n  o:\n    value: {get_attr: [r, here]}\n"
            ),
            "t.env": "requires: {deployment: puppet}\n" + ROLE_REGISTRY,
            "a.yaml": "heat_template_version: 2016-04-08\ncapabilities: {deployment: puppet}\n"
            "outputs:\n  here:\n    value: 1\n",
            "b.yaml": "heat_template_version: 2016-04-08\ncapabilities: {deployment: docker}\n",
        },
    ),
    Case(
        "W1061",
        {"t.yaml": OK, "t.env": OK_ENV + "requires: {deployment: [docker]}\nevent_sinks: []\n"},
        [("t.env", 3, 1)],
        ok={"t.yaml": OK, "t.env": OK_ENV + "encrypted_param_names: [name]\n"},
    ),
    Case(
        "E1070",
        {
            "sub/t.yaml": OK.replace("{get_param: name}", "{get_file: ../outside.txt}"),
            "outside.txt": "x",
        },
        [("sub/t.yaml", 11, 15)],
    ),
    Case(
        "W1071",
        {"t.yaml": OK.replace("{get_param: name}", "{get_file: 'https://example.com/x'}")},
        [("t.yaml", 11, 15)],
    ),
    # ------------------------------------------------------------------ properties (catalog)
    Case(
        "E1080",
        {
            "t.yaml": hot(
                "description: x\nresources:\n  p:\n    type: OS::Neutron::Net\n"
                "    properties:\n      admin_state_up: maybe\n"
            )
        },
        [("t.yaml", 7, 23)],
        ok={
            "t.yaml": hot(
                "description: x\nresources:\n  p:\n    type: OS::Neutron::Net\n"
                "    properties:\n      admin_state_up: true\n"
            )
        },
    ),
    Case(
        "E1080",
        {"t.yaml": hot("description: x\nresources:\n  s:\n    type: OS::Nova::Server\n")},
        [("t.yaml", 4, 3)],
        ok={
            "t.yaml": hot(
                "description: x\nresources:\n  s:\n    type: OS::Nova::Server\n"
                "    external_id: abc\n"
            )
        },
        name="required",
    ),
    Case(
        "E1080",
        {
            "t.yaml": hot(
                "description: x\nresources:\n  p:\n    type: OS::Neutron::Port\n"
                "    properties:\n      network_id: {get_resource: n}\n"
                "      binding:vnic_type: sideways\n  n:\n    type: OS::Neutron::Net\n"
            )
        },
        [("t.yaml", 8, 26)],
        ok={
            "t.yaml": hot(
                "description: x\nresources:\n  p:\n    type: OS::Neutron::Port\n"
                "    properties:\n      network_id: {get_resource: n}\n"
                "      fixed_ips:\n        - subnet_id: {get_resource: n}\n"
                "  n:\n    type: OS::Neutron::Net\n"
            )
        },
        name="allowed-values-and-translation",
    ),
    Case(
        "E1081",
        {
            "t.yaml": hot(
                "description: x\nresources:\n  p:\n    type: OS::Neutron::Net\n"
                "    properties:\n      nam: x\n"
            )
        },
        [("t.yaml", 7, 7)],
        ok={
            "t.yaml": hot(
                "description: x\nresources:\n  p:\n    type: OS::Neutron::Net\n"
                "    properties:\n      name: x\n"
            )
        },
    ),
    # ------------------------------------------------------------------ the linter's own
    Case(
        "W1090",
        {
            "t.yaml": OK.replace("2021-04-16", "2013-05-23")
            .replace("{get_param: name}", "{Fn::Join: ['', [a]]}")
            .replace("{get_attr: [value, value]}", "x")
        },
        [("t.yaml", 11, 15)],
        ok={
            "t.yaml": OK.replace("2021-04-16", "2013-05-23").replace(
                "{get_attr: [value, value]}", "x"
            )
        },
    ),
    Case(
        "W1091",
        {
            "t.yaml": OK.replace("2021-04-16", "2013-05-23").replace(
                "{get_attr: [value, value]}", "x"
            )
        },
        [("t.yaml", 1, 24)],
    ),
    Case(
        "W2001",
        {"t.yaml": OK.replace("{get_param: name}", "fixed")},
        [("t.yaml", 4, 3)],
        ok={"t.yaml": OK.replace("{get_param: name}", "{get_param: {list_join: ['', [na, me]]}}")},
    ),
    Case(
        "I2002",
        {"t.yaml": OK.replace("    description: a name\n", "")},
        [("t.yaml", 4, 3)],
    ),
    Case(
        "E3001",
        {
            "t.yaml": hot(
                "description: x\nresources:\n  a:\n    type: OS::Nova::Sever\n"
                "  b:\n    type: missing.yaml\n  c:\n    type: My::Thing\n"
            ),
            "t.env": "resource_registry:\n  My::Thing: OS::Heat::None\n",
        },
        [("t.yaml", 5, 11), ("t.yaml", 7, 11)],
        ok={
            "t.yaml": hot(
                "description: x\nresources:\n  a:\n    type: OS::Metering::Alarm\n"
                "    properties: {meter_name: cpu, threshold: 1}\n"
                "  b:\n    type: nested.yaml\n  c:\n    type: My::Thing\n"
                "  d:\n    type: 'https://example.com/remote.yaml'\n"
            ),
            "nested.yaml": "heat_template_version: 2021-04-16\n",
            "t.env": "resource_registry:\n  My::Thing: OS::Heat::None\n",
        },
    ),
    Case(
        "I3005",
        {
            "t.yaml": OK.replace(
                "    type: OS::Heat::Value\n    properties:\n      value: {get_param: name}\n",
                "    type: OS::Heat::Value\n    properties:\n      value: {get_param: name}\n"
                "  other:\n    type: OS::Heat::Value\n    depends_on: [value]\n"
                "    properties:\n      value: {get_attr: [value, value]}\n",
            )
        },
        [("t.yaml", 14, 18)],
        ok={
            "t.yaml": OK.replace(
                "    type: OS::Heat::Value\n    properties:\n      value: {get_param: name}\n",
                "    type: OS::Heat::Value\n    properties:\n      value: {get_param: name}\n"
                "  other:\n    type: OS::Heat::Value\n    depends_on: [value]\n"
                "    properties:\n      value: {if: [true, {get_attr: [value, value]}, x]}\n",
            )
        },
    ),
    Case(
        "W3010",
        {"t.yaml": hot("description: x\nresources:\n  a:\n    type: OS::Heat::HARestarter\n")},
        [("t.yaml", 5, 11)],
    ),
    Case(
        "W3011",
        {
            "t.yaml": hot(
                "description: x\nresources:\n  p:\n    type: OS::Neutron::Port\n"
                "    properties:\n      network_id: {get_resource: n}\n"
                "  n:\n    type: OS::Neutron::Net\n"
            )
        },
        [("t.yaml", 7, 7)],
        ok={
            "t.yaml": hot(
                "description: x\nresources:\n  p:\n    type: OS::Neutron::Port\n"
                "    properties:\n      network: {get_resource: n}\n"
                "  n:\n    type: OS::Neutron::Net\n"
            )
        },
    ),
    Case(
        "E3020",
        {
            "t.yaml": hot(
                "description: x\nresources:\n  a:\n    type: nested.yaml\n"
                "  b:\n    type: My::Nested\noutputs:\n  o:\n"
                "    value: [{get_attr: [a, missing]}, {get_attr: [b, absent]}, "
                "{get_attr: [a, here]}]\n"
            ),
            "nested.yaml": "heat_template_version: 2021-04-16\noutputs:\n  here:\n    value: 1\n",
            "t.env": "resource_registry:\n  My::Nested: nested.yaml\n",
        },
        [("t.yaml", 10, 28), ("t.yaml", 10, 54)],
        ok={
            "t.yaml": hot(
                "description: x\nresources:\n  a:\n    type: nested.yaml\noutputs:\n  o:\n"
                "    value: [{get_attr: [a, here]}, {get_attr: [a, resource.x]}]\n"
            ),
            "nested.yaml": "heat_template_version: 2021-04-16\noutputs:\n  here:\n    value: 1\n",
        },
    ),
    Case(
        "E3020",
        {
            "t.yaml": hot(
                "description: x\nresources:\n  r:\n    type: My::Role\n"
                "outputs:\n  o:\n    value: {get_attr: [r, missing]}\n"
            ),
            "t.env": "requires: {deployment: puppet}\n" + ROLE_REGISTRY,
            "a.yaml": "heat_template_version: 2016-04-08\ncapabilities: {deployment: puppet}\n",
            "b.yaml": "heat_template_version: 2016-04-08\ncapabilities: {deployment: docker}\n",
        },
        [("t.yaml", 8, 27)],
        name="chosen-by-requires",
    ),
    Case(
        "W6001",
        {
            "t.yaml": OK.replace(
                "    description: a name\n", "    description: a name\n    hidden: true\n"
            )
            + "  leak:\n    value: {str_replace: {template: pw=$p, "
            "params: {$p: {get_param: name}}}}\n"
        },
        [("t.yaml", 17, 58)],
        ok={
            "t.yaml": OK.replace(
                "    description: a name\n", "    description: a name\n    hidden: true\n"
            )
        },
    ),
    Case(
        "W8003",
        {
            "t.yaml": OK.replace(
                "resources:\n",
                "conditions:\n  never: {equals: [a, b]}\n"
                "  maybe: {equals: [{get_param: name}, b]}\nresources:\n",
            ).replace(
                "    type: OS::Heat::Value\n", "    type: OS::Heat::Value\n    condition: maybe\n"
            )
            + "  gone:\n    value: 1\n    condition: never\n"
        },
        [("t.yaml", 21, 16)],
        ok={
            "t.yaml": OK.replace(
                "resources:\n",
                "conditions:\n  maybe: {equals: [{get_param: name}, b]}\nresources:\n",
            ).replace(
                "    type: OS::Heat::Value\n", "    type: OS::Heat::Value\n    condition: maybe\n"
            )
        },
    ),
    Case(
        "E0101",
        {"bad.zip": b"not a zip"},
        [("bad.zip", 1, 1)],
        ok={"good.zip": zip_bytes({"t.yaml": OK})},
        explicit=True,
    ),
]


ONAP_OK = """\
heat_template_version: 2015-04-30
description: base module
parameters:
  vnf_name:
    type: string
    description: the VNF's name
  availability_zone_0:
    type: string
    description: unused by design (R-91273)
resources:
  vnf_value:
    type: OS::Heat::Value
    properties:
      value: {get_param: vnf_name}
outputs:
  vnf_out:
    value: {get_attr: [vnf_value, value]}
"""
ONAP_ENV = "parameters:\n  vnf_name: demo\n"
ONAP_PACKAGE: Files = {"base_mod.yaml": ONAP_OK, "base_mod.env": ONAP_ENV}


def onap(template: str, **more: str | bytes) -> Files:
    """A package: ``template`` as the base module, its environment, and ``more`` files."""
    return {"base_mod.yaml": template, "base_mod.env": ONAP_ENV, **more}


NESTED = """\
heat_template_version: 2015-04-30
description: nested
parameters:
  size:
    type: number
    description: a size
    constraints:
      - range: {min: 1}
resources:
  inner_value:
    type: OS::Heat::Value
    properties:
      value: {get_param: size}
"""
WITH_NESTED = ONAP_OK.replace(
    "outputs:\n",
    "  vnf_nested:\n    type: nested.yaml\n    properties:\n      size: 1\noutputs:\n",
)

ONAP_CASES: list[Case] = [
    Case(
        "R-92635",
        onap(ONAP_OK.replace("{get_attr: [vnf_value, value]}", "{get_attr: [vnf_valu, value]}")),
        [("base_mod.yaml", 17, 13)],
    ),
    Case(
        "R-92635",
        onap(ONAP_OK, **{"base_mod.env": ONAP_ENV + "  unknown_one: 1\n"}),
        [("base_mod.env", 3, 16)],
        name="environment",
    ),
    Case(
        "R-27078",
        onap(ONAP_OK.replace("heat_template_version: 2015-04-30\n", "")),
        [("base_mod.yaml", 1, 1)],
    ),
    Case(
        "R-39402",
        onap(ONAP_OK.replace("description: base module\n", "")),
        [("base_mod.yaml", 1, 1)],
    ),
    Case(
        "R-35414",
        {
            **ONAP_PACKAGE,
            "module_1.yaml": ONAP_OK.replace(
                ONAP_OK[ONAP_OK.index("parameters:") : ONAP_OK.index("resources:")],
                "parameters: {}\n",
            )
            .replace("{get_param: vnf_name}", "fixed")
            .replace("vnf_value", "mod_value")
            .replace("vnf_out", "mod_out"),
            "module_1.env": "parameters: {}\n",
        },
        [("module_1.yaml", 3, 1)],
        ok=ONAP_PACKAGE,
    ),
    Case(
        "R-90279",
        onap(ONAP_OK.replace("{get_param: vnf_name}", "fixed")),
        [("base_mod.yaml", 4, 3)],
        ok=ONAP_PACKAGE,
    ),
    Case(
        "R-25877",
        onap(
            ONAP_OK.replace("vnf_name", "vnf-name"),
            **{"base_mod.env": "parameters:\n  vnf-name: x\n"},
        ),
        [("base_mod.yaml", 4, 3)],
        ok=ONAP_PACKAGE,
    ),
    Case(
        "R-36772",
        onap(ONAP_OK.replace("  vnf_name:\n    type: string\n", "  vnf_name:\n")),
        [("base_mod.yaml", 4, 3)],
        ok=ONAP_PACKAGE,
    ),
    Case(
        "R-11441",
        onap(ONAP_OK.replace("  vnf_name:\n    type: string\n", "  vnf_name:\n    type: String\n")),
        [("base_mod.yaml", 5, 11)],
        ok=ONAP_PACKAGE,
    ),
    Case(
        "R-44001",
        onap(ONAP_OK.replace("    description: the VNF's name\n", "")),
        [("base_mod.yaml", 4, 3)],
        ok=ONAP_PACKAGE,
    ),
    Case(
        "R-90526",
        onap(
            ONAP_OK.replace(
                "    description: the VNF's name\n", "    description: n\n    default: x\n"
            )
        ),
        [("base_mod.yaml", 7, 5)],
        ok=ONAP_PACKAGE,
    ),
    Case(
        "R-00011",
        onap(WITH_NESTED, **{"nested.yaml": NESTED}),
        [("nested.yaml", 7, 5)],
        ok=onap(
            WITH_NESTED,
            **{"nested.yaml": NESTED.replace("    constraints:\n      - range: {min: 1}\n", "")},
        ),
    ),
    Case(
        "R-23664",
        {
            **ONAP_PACKAGE,
            "module_x.yaml": "heat_template_version: 2015-04-30\ndescription: m\n"
            "parameters:\n  p:\n    type: string\n    description: p\noutputs:\n  o:\n"
            "    value: {get_param: p}\n",
            "module_x.env": "parameters: {}\n",
        },
        [("module_x.yaml", 1, 1)],
        ok=onap(
            ONAP_OK[: ONAP_OK.index("resources:")]
            + "outputs:\n  o:\n    value: {get_param: vnf_name}\n"
        ),
    ),
    Case(
        "R-90152",
        onap(
            ONAP_OK[: ONAP_OK.index("resources:")]
            + "resources: {}\noutputs:\n  o:\n    value: {get_param: vnf_name}\n"
        ),
        [("base_mod.yaml", 10, 1)],
        ok=ONAP_PACKAGE,
    ),
    Case(
        "R-75141",
        onap(ONAP_OK.replace("vnf_value", "vnf-value")),
        [("base_mod.yaml", 11, 3)],
        ok=ONAP_PACKAGE,
    ),
    Case(
        "R-16447",
        onap(ONAP_OK, **{"module_b.yaml": ONAP_OK, "module_b.env": ONAP_ENV}),
        [("module_b.yaml", 11, 3)],
        ok=onap(
            ONAP_OK,
            **{"module_b.yaml": ONAP_OK.replace("vnf_value", "b_value"), "module_b.env": ONAP_ENV},
        ),
    ),
    Case(
        "R-53952",
        onap(WITH_NESTED.replace("type: nested.yaml", "type: http://example.com/nested.yaml")),
        [("base_mod.yaml", 16, 11)],
        ok=onap(WITH_NESTED, **{"nested.yaml": NESTED}),
    ),
    Case(
        "R-71699",
        onap(WITH_NESTED.replace("type: nested.yaml", "type: 'https://example.com/nested.yaml'")),
        [("base_mod.yaml", 16, 11)],
        ok=onap(WITH_NESTED, **{"nested.yaml": NESTED}),
    ),
    Case(
        "R-10834",
        onap(
            ONAP_OK.replace(
                "{get_param: vnf_name}",
                "{get_param: [names, {get_param: [indexes, 0]}]}",
            )
            .replace(
                "  vnf_name:\n",
                "  names:\n    type: comma_delimited_list\n    description: n\n"
                "  indexes:\n    type: comma_delimited_list\n    description: i\n  vnf_name:\n",
            )
            .replace(
                "outputs:\n  vnf_out:\n",
                "outputs:\n  vnf_name_out:\n    value: {get_param: vnf_name}\n  vnf_out:\n",
            )
        ),
        [("base_mod.yaml", 20, 35)],
        ok=onap(
            ONAP_OK.replace(
                "{get_param: vnf_name}",
                "{get_param: [names, {get_param: index}]}",
            )
            .replace(
                "  vnf_name:\n",
                "  names:\n    type: comma_delimited_list\n    description: n\n"
                "  index:\n    type: number\n    description: i\n  vnf_name:\n",
            )
            .replace(
                "outputs:\n  vnf_out:\n",
                "outputs:\n  vnf_name_out:\n    value: {get_param: vnf_name}\n  vnf_out:\n",
            )
        ),
    ),
    Case(
        "R-67386",
        onap(
            ONAP_OK.replace(
                "    type: OS::Heat::Value\n", "    type: OS::Heat::Value\n    metadata: [a, b]\n"
            )
        ),
        [("base_mod.yaml", 13, 15)],
        ok=onap(
            ONAP_OK.replace(
                "    type: OS::Heat::Value\n",
                "    type: OS::Heat::Value\n    metadata: {role: db}\n",
            )
        ),
    ),
    Case(
        "R-86285",
        {"base_mod.yaml": ONAP_OK, "base_other.env": ONAP_ENV},
        [("base_mod.yaml", 1, 1), ("base_other.env", 1, 1)],
        ok=ONAP_PACKAGE,
    ),
    Case(
        "R-03324",
        onap(ONAP_OK, **{"base_mod.env": "parameter_defaults:\n  vnf_name: demo\n"}),
        [("base_mod.env", 1, 1)],
        ok=ONAP_PACKAGE,
    ),
    Case(
        "R-67231",
        onap(ONAP_OK, **{"base_mod.env": ONAP_ENV + "resource_registry:\n  X: OS::Heat::None\n"}),
        [("base_mod.env", 3, 1)],
        ok=ONAP_PACKAGE,
    ),
]
ONAP_CASES = [
    Case(
        c.rule,
        c.fail,
        c.at,
        c.ok if c.ok != {"t.yaml": OK} else ONAP_PACKAGE,
        ("onap",),
        name=c.name,
    )
    for c in ONAP_CASES
]

from .onap_cases import MORE_ONAP_CASES  # noqa: E402 (its cases build on the ones above)
from .onap_nova_cases import NOVA_CASES  # noqa: E402

ONAP_CASES += MORE_ONAP_CASES + NOVA_CASES
from .onap_port_cases import PORT_CASES  # noqa: E402

ONAP_CASES += PORT_CASES
from .onap_nested_cases import NESTED_CASES  # noqa: E402

ONAP_CASES += NESTED_CASES
from .onap_contrail_cases import CONTRAIL_CASES  # noqa: E402

ONAP_CASES += CONTRAIL_CASES
from .onap_metadata_cases import METADATA_CASES  # noqa: E402

ONAP_CASES += METADATA_CASES
from .onap_resource_id_cases import RESOURCE_ID_CASES  # noqa: E402

ONAP_CASES += RESOURCE_ID_CASES
