locals {
  # Labels as the data model data sources return them for an attribute.
  air_date_labels = {
    en    = "Air date"
    fr    = "Date de diffusion"
    fr-CA = "Date de mise en ondes"
  }
}

output "air_date_labels" {
  value = {
    # The full culture code matches: "Date de mise en ondes".
    fr_ca = provider::mediaplatform::localized_label(local.air_date_labels, "fr-CA", "airDate")
    # No fr-BE label: its language, "Date de diffusion".
    fr_be = provider::mediaplatform::localized_label(local.air_date_labels, "fr-BE", "airDate")
    # Neither de-AT nor de: the English label, "Air date".
    de_at = provider::mediaplatform::localized_label(local.air_date_labels, "de-AT", "airDate")
    # No label at all: the fallback, "airDate".
    none = provider::mediaplatform::localized_label({}, "fr-CA", "airDate")
  }
}
