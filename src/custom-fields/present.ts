import { nameOf, websiteOf } from '../enrich/profile-sql.js';
import { PROFILE_FIELDS } from './profile.js';
import type { CustomFieldValue, FieldType } from './schemas.js';
import type { OrganisationProfile } from './store.js';

/** A value set through the API, with the definition it belongs to. */
export function presentValue(
  field: { identifier: string; key: string; type: string },
  value: unknown,
  updatedAt: Date,
): CustomFieldValue {
  return {
    field_identifier: field.identifier,
    field_key: field.key,
    field_type: field.type as FieldType,
    value,
    source: 'manual',
    updated_at: updatedAt.toISOString(),
  };
}

/**
 * The organisation's profile fields as value objects, in contract §13's order, with the
 * values its Organisation shows (`""` when unknown). They have no definition, so the key
 * stands in for the identifier.
 */
export function presentProfile(profile: OrganisationProfile): CustomFieldValue[] {
  const values: Record<(typeof PROFILE_FIELDS)[number]['key'], string> = {
    name: nameOf(profile),
    website: websiteOf(profile),
    industry: profile.industry ?? '',
    size: profile.size ?? '',
    founded: profile.founded ?? '',
    phone: profile.phone ?? '',
    email: profile.email ?? '',
  };
  const updatedAt = (profile.profile_updated_at ?? profile.created_at).toISOString();
  return PROFILE_FIELDS.map((field) => ({
    field_identifier: field.key,
    field_key: field.key,
    field_type: field.type,
    value: values[field.key],
    source: 'fixed',
    updated_at: updatedAt,
  }));
}
