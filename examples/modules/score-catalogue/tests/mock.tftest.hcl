# Plan-only unit tests: the provider is mocked (Terraform >= 1.7), so they need no
# platform and no credentials.

mock_provider "mediaplatform" {
  mock_resource "mediaplatform_score" {
    defaults = {
      id         = "00000000-0000-4000-8000-000000000001"
      status     = "idle"
      page_count = 3
    }
  }
  mock_resource "mediaplatform_score_view" {
    defaults = {
      viewer_url = "https://media.corp.example/viewer/mock"
    }
  }
}

variables {
  scores = {
    "mock-etude" = { url = "https://cdn.example/scores/etude.sib" }
  }
}

run "plans_one_score_and_one_view_per_entry" {
  command = plan

  assert {
    condition     = mediaplatform_score.this["mock-etude"].score_id == "mock-etude"
    error_message = "The map key should become the score's alias."
  }
  assert {
    condition     = mediaplatform_score_view.this["mock-etude"].expires_in == 3600
    error_message = "Views should last var.view_expires_in seconds."
  }
}

run "outputs_come_from_the_platform" {
  command = apply

  assert {
    condition     = output.page_counts["mock-etude"] == 3
    error_message = "page_counts should pass the platform's page count through."
  }
}

run "rejects_a_bad_alias" {
  command = plan
  variables {
    scores = {
      "no spaces allowed" = { url = "https://cdn.example/scores/x.sib" }
    }
  }
  expect_failures = [var.scores]
}
