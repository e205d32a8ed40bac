/** The schema URNs of RFC 7643/7644 and this service's extension. */
export const SCIM_SCHEMAS = {
  user: 'urn:ietf:params:scim:schemas:core:2.0:User',
  enterpriseUser: 'urn:ietf:params:scim:schemas:extension:enterprise:2.0:User',
  /** This service's extension of `User`: `role` (`admin` or `member`) in the organisation. */
  gatewayUser: 'urn:agent-gateway:params:scim:schemas:extension:2.0:User',
  listResponse: 'urn:ietf:params:scim:api:messages:2.0:ListResponse',
  patchOp: 'urn:ietf:params:scim:api:messages:2.0:PatchOp',
  error: 'urn:ietf:params:scim:api:messages:2.0:Error',
  serviceProviderConfig: 'urn:ietf:params:scim:schemas:core:2.0:ServiceProviderConfig',
  resourceType: 'urn:ietf:params:scim:schemas:core:2.0:ResourceType',
  schema: 'urn:ietf:params:scim:schemas:core:2.0:Schema',
} as const;

export const SCIM_CONTENT_TYPE = 'application/scim+json; charset=utf-8';
/** Largest `count` of one list page (`ServiceProviderConfig.filter.maxResults`). */
export const SCIM_MAX_RESULTS = 200;

export function serviceProviderConfig(base: string) {
  return {
    schemas: [SCIM_SCHEMAS.serviceProviderConfig],
    documentationUri: `${base.replace(/\/scim\/v2$/, '')}/api/docs`,
    patch: { supported: true },
    bulk: { supported: false, maxOperations: 0, maxPayloadSize: 0 },
    filter: { supported: true, maxResults: SCIM_MAX_RESULTS },
    changePassword: { supported: false },
    sort: { supported: false },
    etag: { supported: false },
    authenticationSchemes: [
      {
        type: 'oauthbearertoken',
        name: 'OAuth Bearer Token',
        description: "Authentication with the organisation's scim_ token (Authorization: Bearer scim_…)",
        primary: true,
      },
    ],
    meta: { resourceType: 'ServiceProviderConfig', location: `${base}/ServiceProviderConfig` },
  };
}

export function resourceTypes(base: string) {
  return [
    {
      schemas: [SCIM_SCHEMAS.resourceType],
      id: 'User',
      name: 'User',
      endpoint: '/Users',
      description: 'A person of the organisation',
      schema: SCIM_SCHEMAS.user,
      schemaExtensions: [{ schema: SCIM_SCHEMAS.gatewayUser, required: false }],
      meta: { resourceType: 'ResourceType', location: `${base}/ResourceTypes/User` },
    },
  ];
}

const attribute = (name: string, extra: Record<string, unknown> = {}) => ({
  name,
  type: 'string',
  multiValued: false,
  required: false,
  caseExact: false,
  mutability: 'readWrite',
  returned: 'default',
  uniqueness: 'none',
  ...extra,
});

export function schemas(base: string) {
  return [
    {
      schemas: [SCIM_SCHEMAS.schema],
      id: SCIM_SCHEMAS.user,
      name: 'User',
      description: 'User Account',
      attributes: [
        attribute('userName', { required: true, uniqueness: 'server', mutability: 'immutable', description: "The person's email; of a verified domain of the organisation" }),
        attribute('externalId', { caseExact: true, description: "The identity provider's subject for the person" }),
        {
          ...attribute('name'),
          type: 'complex',
          subAttributes: [attribute('givenName'), attribute('familyName'), attribute('formatted')],
        },
        attribute('displayName'),
        attribute('active', { type: 'boolean', description: 'false: deprovisioned (an offboarding in the organisation)' }),
        {
          ...attribute('emails', { multiValued: true, mutability: 'readOnly' }),
          type: 'complex',
          subAttributes: [attribute('value'), attribute('type'), attribute('primary', { type: 'boolean' })],
        },
      ],
      meta: { resourceType: 'Schema', location: `${base}/Schemas/${SCIM_SCHEMAS.user}` },
    },
    {
      schemas: [SCIM_SCHEMAS.schema],
      id: SCIM_SCHEMAS.gatewayUser,
      name: 'AgentGatewayUser',
      description: "The person's place in the organisation",
      attributes: [
        attribute('role', { canonicalValues: ['admin', 'member'], caseExact: true, description: "The person's role in the organisation: admin or member (default: member)" }),
      ],
      meta: { resourceType: 'Schema', location: `${base}/Schemas/${SCIM_SCHEMAS.gatewayUser}` },
    },
  ];
}
