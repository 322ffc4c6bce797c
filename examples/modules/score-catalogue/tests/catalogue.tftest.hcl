# Runs against a platform: the emulator started by `make test` (or by a CI step, see
# docs/guides/testing-your-configuration.md), addressed by the MEDIAPLATFORM_*
# environment variables.

variables {
  scores = {
    "catalogue-sonata"  = { url = "https://cdn.example/scores/sonata.sib" }
    "catalogue-partita" = { url = "https://cdn.example/scores/partita.sib", transpose = true }
  }
}

run "publishes_every_score" {
  command = apply

  assert {
    condition     = length(output.score_ids) == 2
    error_message = "Every catalogue entry should be published once."
  }
  assert {
    condition     = alltrue([for alias, n in output.page_counts : n > 0])
    error_message = "Every score should be rendered (a page count above 0)."
  }
  assert {
    condition     = alltrue([for alias, v in mediaplatform_score_view.this : v.expires_in == 3600])
    error_message = "Every view should last the default hour."
  }
}

run "reads_back_from_the_platform" {
  command = apply
  module {
    source = "./tests/readback"
  }
  variables {
    aliases = ["catalogue-sonata", "catalogue-partita"]
  }

  assert {
    condition     = alltrue([for alias, status in output.statuses : status == "idle"])
    error_message = "The platform should report every catalogue score as rendered (idle)."
  }
  assert {
    condition     = output.total >= 2
    error_message = "The platform should count the catalogue's scores."
  }
}

run "rejects_a_plain_http_address" {
  command = plan
  variables {
    scores = {
      "catalogue-bad" = { url = "http://cdn.example/scores/bad.sib" }
    }
  }
  expect_failures = [var.scores]
}
