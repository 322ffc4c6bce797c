# The import ID is the score's UUID or its alias (score_id).
import {
  to = mediaplatform_score.symphony
  id = "beethoven-symphony-5"
}
