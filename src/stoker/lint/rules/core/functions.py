"""Intrinsic functions: arguments, references, version availability, known values."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import replace

from stoker.diagnostics import Diagnostic, Severity
from stoker.lint.attributes import check_attributes
from stoker.lint.context import FileContext, TemplateContext
from stoker.lint.rule import Source, SourceKind
from stoker.lint.rules.core.base import CodeRule, LintedCodeRule
from stoker.lint.usage import READERS, parameter_name
from stoker.nearest import did_you_mean

_FUNCTIONS = Source(SourceKind.HOT_SPEC, "doc/source/template_guide/hot_spec.rst (functions)")


class FunctionArguments(CodeRule):
    id = "E1030"
    summary = "A function's arguments have the wrong shape"
    explanation = (
        "Each intrinsic function takes arguments of a given shape (get_attr a list starting "
        "with a resource name, str_replace a mapping with template and params, ...). Heat "
        "rejects the template when it parses the call; the message is Heat's."
    )
    source = _FUNCTIONS


class UnknownResource(CodeRule):
    id = "E1031"
    summary = "A reference to a resource that does not exist"
    explanation = (
        "get_resource, get_attr, Ref or Fn::GetAtt names a resource the template does not "
        "define, or one whose condition is false under the values known. Heat: 'The "
        'specified reference "<name>" (in <resource>) is incorrect.\''
    )
    source = _FUNCTIONS


class UnknownParameter(CodeRule):
    id = "E1032"
    summary = "get_param of a parameter that is not declared"
    explanation = (
        "get_param names a parameter the template does not declare (pseudo parameters such "
        "as OS::stack_name excepted). Heat: 'The Parameter (<name>) was not defined in "
        "template.' The finding names the declared parameter nearest to it, if any."
    )
    source = _FUNCTIONS

    def check(self, ctx: FileContext) -> Iterable[Diagnostic]:
        found = ctx.core_findings(self.id)
        if not found or not isinstance(ctx, TemplateContext) or ctx.template is None:
            return found

        read = {call.path: parameter_name(call) for call in ctx.calls(*READERS)}
        declared = list(ctx.parsed.parameters)
        hinted = []
        for finding in found:
            name = read.get(finding.path)
            hint = did_you_mean(name, declared) if isinstance(name, str) else ""
            hinted.append(replace(finding, message=finding.message + hint) if hint else finding)
        return hinted


class FunctionRemoved(CodeRule):
    id = "E1033"
    summary = "A function the template version has removed"
    explanation = (
        "HOT 2014-10-16 removed the CFN functions HOT 2013-05-23 accepted (Ref, Fn::Join, "
        "...) and 2015-10-15 removed Fn::Select; they still parse and then fail: 'The "
        "function <fn> is not supported in this version of HOT.' Use the HOT equivalent."
    )
    source = Source(SourceKind.HEAT, "heat/engine/hot/template.py (functions tables)")


class FunctionContext(CodeRule):
    id = "E1034"
    summary = "A function used where it is not allowed"
    explanation = (
        "Conditions (the conditions section, condition fields, the first argument of if) "
        "may use only condition functions (get_param, equals, not, and, or; yaql and "
        "contains from 2017-09-01). Heat: 'The function \"<fn>\" is invalid in this context'."
    )
    source = Source(SourceKind.HOT_SPEC, "doc/source/template_guide/hot_spec.rst (conditions)")


class FileMissing(CodeRule):
    id = "E1035"
    summary = "get_file of a file that cannot be found or read"
    explanation = (
        "get_file paths are relative to the template and are read before the stack is "
        "created; a path that names no file leaves Heat with 'No content found in the "
        '"files" section for get_file path\'.'
    )
    source = _FUNCTIONS


class FunctionNotInVersion(CodeRule):
    id = "W1036"
    severity = Severity.WARNING
    summary = "A function name this version does not have, kept as literal data"
    explanation = (
        "A one-key mapping whose key is a function of another template version is not a "
        "call in this version: Heat keeps it as plain data, so e.g. {if: [...]} in a 2015 "
        "template reaches the resource as a mapping. Raise the template version, or rename "
        "the key if data was meant."
    )
    source = Source(SourceKind.HEAT, "heat/engine/function.py (parse: unknown keys are data)")


class UnknownAttribute(LintedCodeRule):
    id = "E1037"
    summary = "get_attr of an attribute the resource type does not declare"
    explanation = (
        "get_attr and Fn::GetAtt may read only attributes the resource's type declares (see "
        "`stoker resource-type show TYPE`); Heat rejects others: 'The Referenced Attribute "
        "(<resource> <attribute>) is incorrect.' Types that answer any name are exempt: "
        "OS::Heat::None, groups and other nested stacks, software deployments (their "
        "attributes are their config's outputs); provider templates are checked by E3020. "
        "The type is resolved through the paired environment's resource_registry first."
    )
    source = Source(SourceKind.HEAT, "heat/engine/hot/functions.py (GetAttThenSelect.validate)")

    def linted(self, ctx: TemplateContext) -> Iterable[Diagnostic]:
        return check_attributes(ctx)


class FunctionFailed(CodeRule):
    id = "E1038"
    summary = "A function whose inputs are all known fails"
    explanation = (
        "Everything a function needs is known before create (literals, parameter defaults, "
        "environment values) and resolving it fails: an index out of range, a missing map "
        "key, a str_replace_strict whose key is absent. Heat fails the stack when it "
        "resolves the value."
    )
    source = _FUNCTIONS


class UnknownFunction(CodeRule):
    id = "W1039"
    severity = Severity.WARNING
    summary = "A mapping whose only key looks like a misspelled function"
    explanation = (
        "Heat reads a one-key mapping whose key is not a function of the template's version "
        "(get_parm, str_replce, get_atr) as plain data, so the typo shows up far away (a "
        "property of the wrong type) or not at all. The finding names the function the key "
        "is closest to; errors reported inside the mapping carry the same hint as a note."
    )
    source = _FUNCTIONS
