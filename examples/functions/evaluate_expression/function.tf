locals {
  # A readOnlyExpressionRule as layouts carry it: the rating is read-only once the
  # asset has aired.
  rating_read_only_rule = jsonencode({
    and = [
      { attribute = "status", op = "equals", value = "aired" },
      { attribute = "airDate", op = "isSet" },
    ]
  })
}

output "rating_read_only" {
  value = {
    # true
    aired = provider::mediaplatform::evaluate_expression(local.rating_read_only_rule, {
      status  = "aired"
      airDate = "2026-11-21"
    })
    # false: a missing attribute is the empty string, so airDate is not set.
    no_air_date = provider::mediaplatform::evaluate_expression(local.rating_read_only_rule, {
      status = "aired"
    })
  }
}
