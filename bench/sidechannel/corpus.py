"""Answer sentences per topic for the stand-in engine (written for this bench)."""
POOLS = {
 "cooking": [
  "Start by heating a wide pan over medium heat with a spoon of olive oil.",
  "Add the onion and cook it slowly until it turns soft and golden.",
  "Garlic burns fast, so add it only for the last minute.",
  "Season with salt early, then taste again at the end.",
  "A splash of wine lifts the brown bits from the bottom of the pan.",
  "Let the sauce simmer for twenty minutes so the flavours can meet.",
  "Cook the pasta in plenty of salted water and keep a cup of it.",
  "Toss everything together and loosen it with the starchy water.",
  "Fresh basil goes in off the heat, torn by hand.",
  "Rest the meat for five minutes before you slice it.",
  "Bread dough needs time more than it needs kneading.",
  "Keep the oven hot and do not open the door too often.",
 ],
 "medicine": [
  "Hypertension often produces no symptoms until complications appear.",
  "Antihypertensive medication is usually combined with dietary modification.",
  "Persistent headaches accompanied by visual disturbances warrant immediate evaluation.",
  "Cardiovascular risk increases substantially with uncontrolled cholesterol.",
  "Physicians typically recommend reassessment after approximately three months.",
  "Inflammatory markers can indicate an underlying autoimmune condition.",
  "Antibiotics are ineffective against viral respiratory infections.",
  "Regular physical activity improves insulin sensitivity considerably.",
  "Consult a pharmacist regarding interactions between prescriptions.",
  "Dehydration manifests through dizziness, fatigue and decreased urination.",
  "Anticoagulation therapy requires careful laboratory monitoring.",
  "Chronic insomnia frequently coexists with anxiety disorders.",
 ],
 "law": [
  "A contract needs an offer, an acceptance and something of value exchanged.",
  "Read the termination clause before you sign anything.",
  "Most tenancy disputes are settled before they reach a court.",
  "Keep copies of every letter and note the date you sent it.",
  "A verbal agreement can bind you, but it is hard to prove.",
  "The limitation period decides how long you have to bring a claim.",
  "Ask whether the other side has a duty to mitigate its loss.",
  "Small claims courts keep costs low and forms simple.",
  "An employer must give written reasons for a dismissal in many countries.",
  "Intellectual property rules differ for patents, marks and copyright.",
  "Get independent advice before you waive any right.",
  "Mediation is cheaper and faster than going to trial.",
 ],
}
PROMPTS = {
 "cooking": ["topic: cooking How do I make a quick tomato pasta sauce?", "topic: cooking What should I cook tonight with onions and garlic?",
             "topic: cooking Any tips for roasting meat?", "topic: cooking How do I bake bread at home without a mixer?"],
 "medicine": ["topic: medicine What does high blood pressure mean for me?", "topic: medicine Should I worry about frequent headaches?",
              "topic: medicine Do antibiotics help with a cold?", "topic: medicine How can I sleep better when anxious?"],
 "law": ["topic: law Can my landlord keep my deposit?", "topic: law Is a verbal agreement binding?",
         "topic: law What happens if I break my contract early?", "topic: law How do small claims courts work?"],
}

# What a user pastes before the question, by topic (so the request's size differs by topic, as
# an image or a contract would): characters of context drawn from this range per prompt.
CONTEXT = {"cooking": (0, 150), "medicine": (150, 450), "law": (400, 1300)}
FILLER = {
 "cooking": "I have tomatoes, onions, garlic, basil, dried pasta, olive oil and some parmesan. ",
 "medicine": "For two weeks I have had mild headaches in the afternoon, some dizziness when I stand up quickly, and my blood pressure reading at the pharmacy was 150 over 95. ",
 "law": "Clause 14.2: Either party may terminate this agreement by giving not less than three months written notice, provided that the tenant shall remain liable for all rent and service charges accruing until the expiry of the notice period, and the deposit shall be returned within thirty days less any reasonable deductions for damage beyond fair wear and tear. ",
}

def prompt_for(topic, rng):
    """A question of `topic` with pasted context of a topic-dependent length."""
    n = rng.randint(*CONTEXT[topic])
    context = (FILLER[topic] * (n // len(FILLER[topic]) + 1))[:n]
    return context + rng.choice(PROMPTS[topic])
