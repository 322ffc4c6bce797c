# How many scores are still waiting to be rendered.
data "mediaplatform_score_count" "pending" {
  status = "pending"
}

# Gate a pipeline: fail the plan while the render queue is too long.
check "render_queue" {
  assert {
    condition     = data.mediaplatform_score_count.pending.total < 100
    error_message = "${data.mediaplatform_score_count.pending.total} scores are waiting to be rendered."
  }
}
