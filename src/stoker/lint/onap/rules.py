"""Every rule of the onap profile, in the order of the requirements they check.

Listed here rather than in `stoker.lint.registry` so that the profile's rules are one
module's business; the registry takes them all.
"""

from __future__ import annotations

from stoker.lint.onap import addresses as onap_addresses
from stoker.lint.onap import contrail as onap_contrail
from stoker.lint.onap import environment as onap_environment
from stoker.lint.onap import metadata as onap_metadata
from stoker.lint.onap import modularity as onap_modularity
from stoker.lint.onap import nested as onap_nested
from stoker.lint.onap import network_roles as onap_network_roles
from stoker.lint.onap import neutron as onap_neutron
from stoker.lint.onap import nova as onap_nova
from stoker.lint.onap import outputs as onap_outputs
from stoker.lint.onap import package as onap_package
from stoker.lint.onap import parameters as onap_parameters
from stoker.lint.onap import ports as onap_ports
from stoker.lint.onap import resource_ids as onap_resource_ids
from stoker.lint.onap import resources as onap_resources
from stoker.lint.onap import server_images as onap_server_images
from stoker.lint.onap import subnets as onap_subnets
from stoker.lint.onap import template as onap_template
from stoker.lint.onap import vips as onap_vips
from stoker.lint.onap import vm_types as onap_vm_types
from stoker.lint.onap import volume as onap_volume
from stoker.lint.rule import Rule

ONAP_RULES: tuple[type[Rule], ...] = (
    onap_template.TemplateGuideCompliance,
    onap_template.VersionSection,
    onap_template.DescriptionSection,
    onap_template.ParametersSection,
    onap_parameters.ParameterUsed,
    onap_parameters.ParameterName,
    onap_parameters.ParameterHasType,
    onap_parameters.ParameterTypeValue,
    onap_parameters.ParameterHasDescription,
    onap_parameters.ParameterNoDefault,
    onap_environment.DefaultInEnvironment,
    onap_parameters.NestedParameterConstraints,
    onap_template.ModuleResourcesSection,
    onap_template.ResourcesNotEmpty,
    onap_resources.ResourceIdCharacters,
    onap_package.UniqueResourceIds,
    onap_resources.NoRemoteDefinitions,
    onap_resources.NoRemoteNestedTemplates,
    onap_resources.GetParamNesting,
    onap_resources.MetadataIsMap,
    onap_environment.ModuleHasEnvironment,
    onap_environment.EnvironmentParameters,
    onap_environment.NoResourceRegistry,
    # beyond the seed: ONAP's OS::Nova::Server naming conventions
    *onap_nova.NOVA_RULES,
    *onap_server_images.SERVER_IMAGE_RULES,
    *onap_vm_types.VM_TYPE_RULES,
    *onap_network_roles.NETWORK_ROLE_RULES,
    *onap_metadata.METADATA_RULES,
    # beyond the seed: volume modules feeding their module
    onap_volume.VolumeOutputsCarryUuids,
    onap_volume.VolumeModuleHasModule,
    onap_volume.VolumeOutputsAreModuleParameters,
    onap_volume.VolumeParametersUnconstrained,
    onap_volume.VolumeModuleHasVolume,
    onap_volume.VolumeWithoutZone,
    *onap_modularity.MODULARITY_RULES,
    # beyond the seed: network and port resource ids
    onap_neutron.NetworkResourceId,
    onap_neutron.ExternalPortResourceId,
    onap_neutron.InternalPortResourceId,
    # beyond the seed: OS::Neutron::Port parameters per network kind, VIPs
    *onap_ports.PORT_RULES,
    *onap_addresses.ADDRESS_RULES,
    *onap_subnets.SUBNET_RULES,
    *onap_vips.VIP_RULES,
    *onap_contrail.CONTRAIL_RULES,
    # beyond the seed: nested templates and groups, predefined outputs, get_file
    *onap_nested.NESTED_RULES,
    *onap_outputs.OUTPUT_RULES,
    *onap_resource_ids.RESOURCE_ID_RULES,
)
