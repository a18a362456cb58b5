"""Cases where stoker does not (yet) show what Heat shows, each with a one-line reason.

Both tables run as ``xfail(strict=True)``: when a fix makes a case match, its test fails
and the entry must go. The reasons name the class of issue 8 they belong to (§1-§4) or,
for classes the issue does not list, say what differs. ``HEAT_BUGS`` are differences on
purpose: Heat is plainly wrong there, and docs/heat-differences.md ("Recorded Heat bugs")
says what stoker does instead.
"""

from __future__ import annotations

# ---------------------------------------------------------------- classes of issue 8
OUTPUT_TIME = (
    "§1 output-time error: Heat accepts and gives the output an output_error, "
    "stoker refuses at validate"
)
OUTPUT_KEYS = "§1 a key Heat does not know inside an output (condition before 2016-10-14): ignored"
CAPABILITIES = (
    "stoker extension: the capabilities section (template capabilities) is unknown to "
    "Heat 24.1.2, which refuses it"
)
DESCRIPTION = "§1 a template description that is not a string: Heat accepts it"
PROPERTY_FUNCTION_STAGE = (
    "§1 stage: a function or get_param error inside a property is refused by Heat at "
    "create, by stoker already at validate"
)
UNKNOWN_ATTRIBUTE = "§2 get_attr of an attribute the type lacks: Heat refuses"
VALUE_TYPE = "§2 OS::Heat::Value's value must fit its type: Heat refuses at create"
CUSTOM_CONSTRAINT = "§2 a custom_constraint no plugin provides: Heat refuses at create"
YAML_KEYS = "§2 YAML keys that are not strings (no:, null:): Heat refuses the document"
UNKNOWN_PROPERTY = "§2 unknown property names: Heat refuses at validate"
PROPERTY_VALUE_STAGE = (
    "§2/§3 stage: property values (required, type, range) are checked by Heat at create "
    "only (its validate runs with strict_validate=False); stoker checks them at validate"
)
UNKNOWN_TYPE = "§3 a resource type neither the catalog nor the registry knows: Heat refuses"
UNUSED_CONDITION = "§3 a condition nothing uses is never evaluated by Heat"
MASKING = "§4 an output computed from a hidden parameter shows its value in Heat"
STRING_INDEX = "§4 get_param [s, 0] on a string parameter indexes the string in Heat"
ARN = "§4 get_resource of a nested stack is its ARN-style identifier in Heat"
CDL_FLATTEN = "§4 a list of maps given to a comma_delimited_list becomes .member.N.k=v in Heat"
PSEUDO = "§4 pseudo-parameters (OS::project_id known at create; declared pseudo-parameters)"

# ---------------------------------------------------------------- not listed in issue 8
PARAMETER_VALUE_STAGE = (
    "stage: parameter values (type, constraints, bad defaults) are checked by Heat at "
    "create only; stoker's validate checks the values it is given"
)
PROVIDER_STAGE = (
    "stage: an error inside a provider template (bad reference, recursion, its own "
    "constraints) is refused by Heat at create; stoker refuses at validate"
)
GET_AZS = (
    "needs a cloud: Fn::GetAZs asks Nova, which the reference Heat lacks (output_error); "
    "stoker answers ['nova'] without a cloud"
)
GET_FILE_COMPUTED = (
    "get_file whose path comes from a function: Heat resolves it at output time, stoker refuses"
)
MERGE_STRATEGY = "an unknown parameter_merge_strategies value: Heat ignores it, stoker refuses"
DUPLICATE_KEYS = "a duplicate YAML key: Heat keeps the last value, stoker refuses the document"

ENV_SECTION = (
    "§2 an environment section users may not supply (encrypted_param_names): Heat refuses "
    "at create, by way of an internal KeyError (docs/heat-differences.md)"
)

MISMATCHES: dict[str, str] = {
    "environments/encrypted_param_names": ENV_SECTION,
    "cfn/ref_unknown": OUTPUT_TIME,
    "cfn/get_att_unknown_attribute": UNKNOWN_ATTRIBUTE,
    "cfn/join_non_string": OUTPUT_TIME,
    "cfn/select_from_string": OUTPUT_TIME,
    "cfn/get_azs": GET_AZS,
    "cfn/find_in_map_missing": OUTPUT_TIME,
    "cfn/parameter_max_value_violated": PARAMETER_VALUE_STAGE,
    "cfn/parameter_noecho": MASKING,
    "collections/map_merge_not_map@2016-04-08": OUTPUT_TIME,
    "collections/map_merge_not_list@2016-04-08": OUTPUT_TIME,
    "collections/map_replace_key_collision@2016-10-14": OUTPUT_TIME,
    "collections/map_replace_not_map@2016-10-14": OUTPUT_TIME,
    "collections/map_replace_bad_section@2016-10-14": OUTPUT_TIME,
    "collections/list_concat_not_list@2017-09-01": OUTPUT_TIME,
    "collections/contains_map@2017-09-01": OUTPUT_TIME,
    "collections/filter_not_list@2017-02-24": OUTPUT_TIME,
    "collections/if_removes_property@2016-10-14": PSEUDO,
    "collections/if_removes_property@2021-04-16": PSEUDO,
    "collections/get_param_string_index@2015-10-15": STRING_INDEX,
    "collections/get_param_undeclared_in_output@2015-10-15": OUTPUT_TIME,
    "collections/get_param_undeclared_in_property@2015-10-15": PROPERTY_FUNCTION_STAGE,
    "collections/get_param_empty_list@2015-10-15": OUTPUT_TIME,
    "collections/fn_getazs_hot@2013-05-23": GET_AZS,
    "conditions/unused_condition_bad_param@2018-08-31": UNUSED_CONDITION,
    "conditions/disabled_resource_get_resource_output@2018-08-31": OUTPUT_TIME,
    "conditions/condition_name_yaml_boolean@2018-08-31": YAML_KEYS,
    "environments/merge_strategy_bad": MERGE_STRATEGY,
    "environments/registry_unknown_target": UNKNOWN_TYPE,
    "environments/registry_unknown_type_unmapped": UNKNOWN_TYPE,
    "environments/hidden_via_environment": MASKING,
    "groups/group_count_negative": PROPERTY_VALUE_STAGE,
    "groups/group_custom_index_var": PROPERTY_VALUE_STAGE,
    "groups/group_member_attribute_unknown": UNKNOWN_ATTRIBUTE,
    "groups/group_no_resource_def": PROPERTY_VALUE_STAGE,
    "parameters/number_bad": PARAMETER_VALUE_STAGE,
    "parameters/number_bad_default": PARAMETER_VALUE_STAGE,
    "parameters/boolean_bad": PARAMETER_VALUE_STAGE,
    "parameters/json_given_bad": PARAMETER_VALUE_STAGE,
    "parameters/hidden_parameter@2013-05-23": MASKING,
    "parameters/hidden_parameter@2018-08-31": MASKING,
    "parameters/hidden_parameter_in_str_replace": MASKING,
    "parameters/length_too_long_given": PARAMETER_VALUE_STAGE,
    "parameters/range_violated": PARAMETER_VALUE_STAGE,
    "parameters/allowed_values_violated": PARAMETER_VALUE_STAGE,
    "parameters/allowed_pattern_violated": PARAMETER_VALUE_STAGE,
    "parameters/modulo_violated": PARAMETER_VALUE_STAGE,
    "parameters/custom_constraint_unknown": CUSTOM_CONSTRAINT,
    "parameters/custom_constraint_cron_bad": PARAMETER_VALUE_STAGE,
    "parameters/custom_constraint_ip_bad": PARAMETER_VALUE_STAGE,
    "parameters/custom_constraint_mac_bad": PARAMETER_VALUE_STAGE,
    "parameters/custom_constraint_timezone": PARAMETER_VALUE_STAGE,
    "parameters/pseudo_parameter_declared": PSEUDO,
    "providers/nested_missing_required": PROPERTY_VALUE_STAGE,
    "providers/nested_get_resource_arn": ARN,
    "providers/nested_output_error": OUTPUT_TIME,
    "providers/nested_invalid_template": PROVIDER_STAGE,
    "providers/nested_cdl_list_of_maps": CDL_FLATTEN,
    "providers/nested_boolean_from_string": PROPERTY_VALUE_STAGE,
    "providers/nested_string_from_map": PROPERTY_VALUE_STAGE,
    "providers/nested_constraint_violated": PROVIDER_STAGE,
    "providers/nested_recursion": PROVIDER_STAGE,
    "providers/nested_cfn_template": UNKNOWN_TYPE,
    "providers/os_heat_stack_inline": PROPERTY_FUNCTION_STAGE,
    "providers/os_heat_stack_missing_template": PROPERTY_VALUE_STAGE,
    "providers/provider_type_property_mismatch": PROPERTY_VALUE_STAGE,
    "refs/get_attr_unknown_attribute_output@2015-10-15": UNKNOWN_ATTRIBUTE,
    "refs/get_attr_unknown_attribute_output@2021-04-16": UNKNOWN_ATTRIBUTE,
    "refs/get_attr_unknown_attribute_property@2015-10-15": UNKNOWN_ATTRIBUTE,
    "refs/get_attr_string_arg@2015-10-15": OUTPUT_TIME,
    "refs/get_resource_unknown_output@2018-08-31": OUTPUT_TIME,
    "refs/get_file_missing@2018-08-31": OUTPUT_TIME,
    "refs/get_file_not_string@2018-08-31": OUTPUT_TIME,
    "refs/get_file_from_param@2018-08-31": GET_FILE_COMPUTED,
    "refs/output_unknown_key@2018-08-31": OUTPUT_KEYS,
    "versions/output_condition_key@2016-04-08": OUTPUT_KEYS,
    "versions/capabilities_section@2018-08-31": CAPABILITIES,
    "versions/capabilities_section@2021-04-16": CAPABILITIES,
    "resources/value_types@2018-08-31": VALUE_TYPE,
    "resources/value_json_string": VALUE_TYPE,
    "resources/value_cdl_string": VALUE_TYPE,
    "resources/unknown_property": UNKNOWN_PROPERTY,
    "resources/unknown_resource_type": UNKNOWN_TYPE,
    "resources/update_policy_none": UNKNOWN_PROPERTY,
    "resources/description_not_string": DESCRIPTION,
    "resources/description_number": DESCRIPTION,
    "resources/yaml_null_key": YAML_KEYS,
    "resources/yaml_bool_key": YAML_KEYS,
    "resources/duplicate_key": DUPLICATE_KEYS,
    "resources/property_function_error_list_join": PROPERTY_FUNCTION_STAGE,
    "resources/property_function_error_str_split": PROPERTY_FUNCTION_STAGE,
    "resources/property_function_error_digest": PROPERTY_FUNCTION_STAGE,
    "resources/property_function_error_map_merge": PROPERTY_FUNCTION_STAGE,
    "resources/property_function_error_yaql": PROPERTY_FUNCTION_STAGE,
    "resources/property_function_error_str_replace_strict": PROPERTY_FUNCTION_STAGE,
    "resources/property_function_error_repeat": PROPERTY_FUNCTION_STAGE,
    "strings/list_join_map_item@2013-05-23": OUTPUT_TIME,
    "strings/list_join_number_item@2013-05-23": OUTPUT_TIME,
    "strings/list_join_number_item@2015-10-15": OUTPUT_TIME,
    "strings/list_join_not_list@2013-05-23": OUTPUT_TIME,
    "strings/list_join_not_list@2016-10-14": OUTPUT_TIME,
    "strings/list_join_delimiter_number@2013-05-23": OUTPUT_TIME,
    "strings/list_join_delimiter_number@2016-10-14": OUTPUT_TIME,
    "strings/str_replace_map_value@2015-04-30": OUTPUT_TIME,
    "strings/str_replace_list_value@2015-04-30": OUTPUT_TIME,
    "strings/str_replace_template_number@2015-04-30": OUTPUT_TIME,
    "strings/str_replace_template_number@2018-08-31": OUTPUT_TIME,
    "strings/str_replace_strict_missing@2017-02-24": OUTPUT_TIME,
    "strings/str_replace_strict_missing@2021-04-16": OUTPUT_TIME,
    "strings/str_replace_vstrict_empty_value@2017-09-01": OUTPUT_TIME,
    "strings/str_replace_vstrict_missing@2017-09-01": OUTPUT_TIME,
    "strings/str_split_index_out_of_range@2015-10-15": OUTPUT_TIME,
    "strings/str_split_not_string@2015-10-15": OUTPUT_TIME,
    "strings/str_split_one_arg@2015-10-15": OUTPUT_TIME,
    "strings/repeat_no_permutations_unequal@2017-09-01": OUTPUT_TIME,
    "strings/repeat_non_string_item@2015-04-30": OUTPUT_TIME,
    "strings/repeat_non_string_item@2016-10-14": OUTPUT_TIME,
    "strings/repeat_for_each_not_list@2015-04-30": OUTPUT_TIME,
    "strings/digest_unknown_algorithm@2015-04-30": OUTPUT_TIME,
    "strings/digest_non_string@2015-04-30": OUTPUT_TIME,
    "strings/digest_one_arg@2015-04-30": OUTPUT_TIME,
    "strings/make_url_scheme_colon@2017-09-01": OUTPUT_TIME,
    "strings/yaql_runtime_error@2016-10-14": OUTPUT_TIME,
}

HEAT_BUGS: dict[str, str] = {
    "refs/output_from_failed_resource@2018-08-31": (
        "a TestResource whose create failed answers get_attr with resource data left by "
        "another, deleted resource (the value changes from run to run)"
    ),
    "environments/registry_per_resource": (
        "a per-resource registry entry for one resource turns the other resources of that "
        "type into OS::Heat::None when outputs are read (their attributes become null)"
    ),
}
