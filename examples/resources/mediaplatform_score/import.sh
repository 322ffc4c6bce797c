# By the score's UUID:
terraform import mediaplatform_score.symphony 4f0c6b1e-8d3a-4b7e-9a51-2c6d8e0f1a23

# or by its alias (score_id):
terraform import mediaplatform_score.symphony beethoven-symphony-5
