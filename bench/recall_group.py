"""A held-out chat set: group chats of four friends (``recall.py --conv --sets group``).

Written after every constant of ``ranked`` and ``hybrid`` was chosen on ``recall_conv.chat`` and never
used to choose one: it is the check that the chat bench's figures hold on conversations nobody tuned on.
It differs from that set where real chats do: four speakers a group, who talk to each other by name;
sessions days apart of 12–40 turns; answers that come in someone else's line (a friend tells about
another) or a few turns after the question (others talk in between); other facts, other small talk, other
names. Question categories:

- ``single``: the fact is one turn, the question shares a word or two with it;
- ``reply``: a friend asks, the answer is the reply, sometimes a few turns later;
- ``told``: one friend tells about another (the evidence is not the owner's line);
- ``followup``: the owner announces, someone reacts, the owner tells two turns later;
- ``paraphrase``: the question shares no content word with its evidence;
- ``multi``: a plan and how it went, sessions apart; both needed.
"""

from __future__ import annotations

import random

from recall_conv import as_rows

GROUPS = [("Hannah", "Malik", "Sofia", "Jonas"), ("Ruth", "Kenji", "Amara", "Felix"),
          ("Ines", "Tariq", "Clara", "Ben"), ("Yusuf", "Mona", "Pete", "Leah"), ("Greta", "Omid", "Nora", "Luis"),
          ("Ada", "Rafael", "Zoe", "Milan"), ("Elif", "Sean", "Paula", "Viktor"), ("Mara", "Dev", "Lotte", "Hugo"),
          ("Iris", "Kwame", "Selma", "Theo"), ("Noor", "Aaron", "Vera", "Kai")]

# kind ~ turns (A: the fact's owner, B and C: two other friends; a leading * marks evidence; a leading + puts
# one to three turns of others before the turn; "..." puts sessions between) ~ question ~ answers ~ near misses
FACTS = """
single ~ *A: We named the puppy {X}, he already chews everything. ~ What did {A} name the puppy? ~ Biscuit|Pepper|Waffles|Mochi ~ Puppies chew everything, my shoes are ruined.|We argued about names for ages and never agreed.|The puppy next door barks all night.
single ~ *A: Passed my driving test on the {X} attempt, finally! ~ On which attempt did {A} pass the driving test? ~ third|second|fourth|fifth ~ My driving test is next month, I'm so nervous.|I failed a test once because of one roundabout.|Driving in the city is a nightmare.
single ~ *A: Our team won the {X} round at quiz night on Friday. ~ Which round did {A}'s team win at quiz night? ~ music|movie|geography|history ~ Quiz night at the pub is always packed.|Our team never wins anything, we go for the fries.|Friday night was quiet, I slept at nine.
single ~ *A: I'm growing {X} on the balcony this year, fingers crossed. ~ What is {A} growing on the balcony? ~ chillies|strawberries|tomatoes|basil ~ Our balcony is too windy for plants.|This year I want to grow something, anything.|Fingers crossed the rain stops before the weekend.
single ~ *A: My brother just opened a {X} downtown, you all have to come by. ~ What did {A}'s brother open downtown? ~ barber shop|ramen bar|climbing gym|record store ~ My brother always has some new project.|Parking downtown is impossible on Saturdays.|You have to come by for dinner sometime.
reply ~ B: {A}, how did the interview go?? | *A: They offered me the job! I start at the {X} in May. ~ Where was {A} offered a job after the interview? ~ natural history museum|city zoo|botanical garden|public radio station ~ Job interviews make me so nervous.|May is going to be a crazy month.|I start a new course in the autumn.
reply ~ C: What was the best part of the holiday, {A}? | *A: Definitely {X}, I still think about it every day. ~ What was the best part of {A}'s holiday? ~ the night train through the Alps|swimming with turtles|the street food market|hiking up to the glacier ~ I need a holiday so badly.|The best part of my week was a nap.|The holiday photos are still on my camera.
reply ~ B: Did you ever get the car fixed, {A}? | +*A: Sold it in the end. I do everything by {X} now. ~ How does {A} get around since the car? ~ bike|scooter|bus|tram ~ The car needs new tyres again.|Getting anything fixed takes weeks here.|I'll drive us, the car is fine.
reply ~ C: What are you reading at the moment, {A}? | B: Ooh yes, tell us. | *A: A huge biography of {X}, it's fascinating. ~ Whose biography is {A} reading? ~ Marie Curie|Napoleon|Ada Lovelace|Nelson Mandela ~ I haven't read anything in months.|At the moment I only read the news, it's grim.|That sounds fascinating, send me the link.
reply ~ B: {A}, what did the doctor say about your knee? | +*A: Sorry, was driving! Torn {X}, six weeks of physio. ~ What did the doctor find wrong with {A}'s knee? ~ meniscus|ligament|tendon|cartilage ~ My knee hurts when it rains.|The doctor was running an hour late again.|Physio is boring but it works.
told ~ *B: Did you hear? {A} is training for the {X}, four mornings a week. ~ What is {A} training for? ~ city triathlon|ironman|ultramarathon|charity swim ~ I'm training myself to get up earlier.|Four mornings a week I walk the dog before work.|Did you hear the news about the bakery closing?
told ~ *C: {A} made the most amazing {X} for the party, everyone wanted the recipe. ~ What did {A} make for the party? ~ lemon tart|lasagne|carrot cake|paella ~ The party was amazing, thanks for coming.|Everyone wanted to stay longer at the party.|I need the recipe for that soup.
told ~ *B: Big news, {A} got promoted to {X}! | A: Stop it, you're making me blush. ~ What was {A} promoted to? ~ head of the lab|shift manager|senior editor|team lead ~ Promotions at my place take forever.|Stop it, you're making me laugh.|My sister is a manager now, she's unbearable.
followup ~ *A: Big decision made this weekend. | C: Don't leave us hanging! | *A: We're getting {X}. ~ What big decision did {A} make that weekend? ~ married next summer|a second dog|solar panels|a camper van ~ Big decisions stress me out.|This weekend was a total blur.|Don't leave the dishes for me again.
followup ~ *A: You won't believe who I ran into at the station. | B: Who?? | *A: {X}, I haven't seen them in ten years. ~ Who did {A} run into at the station? ~ my old piano teacher|our school bus driver|my first boss|my cousin from Leeds ~ The station was chaos this morning.|I ran into a door, don't ask.|Ten years in this city and I still get lost.
paraphrase ~ *A: Back from {X} last night, still dreaming of the food. ~ Which country did {A} visit? ~ Lisbon and Porto|Kyoto and Osaka|Oaxaca and Mexico City|Marrakesh and Fes ~ I dream about food way too much.|Last night I cooked for six people.|Back home at last, what a week.
paraphrase ~ *A: I handed in my notice today, {X} was the last straw. ~ Why did {A} quit their job? ~ the night shifts|my manager|the commute|the pay cut ~ Today was the last straw with my landlord.|I handed in the form today, finally done.|The commute to the gym is ridiculous.
paraphrase ~ *A: The little one arrived {X}, we're exhausted and so happy. ~ When was {A}'s baby born? ~ on Tuesday morning|on Sunday night|on New Year's Eve|a week early ~ We're exhausted, the neighbours had a party.|So happy the weekend is here.|The parcel arrived on Tuesday morning.
paraphrase ~ *A: My {X} teacher says my pronunciation is finally getting better. ~ Which language is {A} learning? ~ Japanese|Italian|Korean|Portuguese ~ My piano teacher says I'm getting better.|Finally getting better after that awful cold.|Teachers are so underpaid, honestly.
multi ~ *A: I applied for the scholarship in Vienna, wish me luck. | ... | *A: Got the letter about Vienna: {X}! ~ What came of {A}'s scholarship application? ~ the full scholarship|half the funding|a place on the waitlist|a rejection, sadly ~ Wish me luck for tomorrow, big meeting.|I got a letter from the council about the bins.|Vienna is on my list for next year.
multi ~ *A: We're planning a surprise for Mum's sixtieth. | ... | *A: The surprise worked, we took her to {X}. ~ Where did {A} take their mum for her sixtieth? ~ Venice|a jazz club|the opera|a hot air balloon ride ~ Planning anything with my family is chaos.|Mum hates surprises, she always finds out.|It worked! The printer is fixed.
"""

SMALL = """
open: Hey all|Morning!|Ha|Okay so|Wait|Honestly|Lol|Ugh|Guys|Quick one|So|Omg
says: Who's coming on Saturday?|I'm so tired today, the baby next door cried all night.|Can someone send me the photos from last time?|The bakery on the corner has new cinnamon rolls, dangerous.|My phone died again, sorry for the silence.|Work is chaos, three people are off sick.|We should do a picnic when the weather turns.|I burnt the rice again, how is that even possible.|The train was forty minutes late, of course.|I finally cleaned the fridge, found things from another era.|Anyone up for a walk by the river tomorrow?|My plants are dying and I don't know why.|I've been watching that cooking show all week.|It rained the whole weekend, I didn't leave the flat.|Who has my blue umbrella?|The new neighbours seem nice, they brought cookies.|I need a new laptop, mine sounds like a jet engine.|The kids at my cousin's party were feral.|Did anyone else get that weird email from the landlord?|I started a puzzle with two thousand pieces, big mistake.|My sister is visiting next week, I have to clean everything.|The gym was empty this morning, bliss.|I'm making soup, anyone want some?|That film on Friday was way too long.|I keep forgetting to call my grandma back.|Coffee machine at work is broken again, send help.|We went to the flea market, I bought a lamp I don't need.|I slept ten hours and I'm still tired.|My landlord finally fixed the heating.|There's a new ramen place near the station, it's good.|Bike got a flat on the way home, walked for an hour.|I'm thinking of dyeing my hair, talk me out of it.|The quiz questions last time were impossible.|I've got tickets for the concert in June, who's in?|My train pass expired and I only noticed at the barrier.|We painted the kitchen, it's very yellow now.
react: Haha|Noooo|That's brilliant|Oh no|Same|Love that|Wow|Ugh, sorry|So jealous|Yesss|Good for you|Classic|I'm crying|Fair enough
"""


def pools(text: str) -> dict[str, list[str]]:
    return {k: v.split("|") for k, v in (line.split(": ", 1) for line in text.strip().splitlines())}


TEMPLATES = [tuple(part.strip() for part in line.split(" ~ ")) for line in FACTS.strip().splitlines()]
POOLS = pools(SMALL)


def filler(rng: random.Random, group: tuple[str, ...], turns: int) -> list[str]:
    """Small talk: anyone speaks next, now and then to someone by name."""
    out = []
    for _ in range(turns):
        speaker = rng.choice(group)
        text = rng.choice(POOLS["says"])
        roll = rng.random()
        lowered = text[0].lower() + text[1:] if text[1].islower() else text  # "I burnt" stays
        if roll < 0.25:
            text = f"{rng.choice(POOLS['react'])}! {text}"
        elif roll < 0.4:
            text = f"{rng.choice([g for g in group if g != speaker])}, {lowered}"
        elif roll < 0.55:
            text = f"{rng.choice(POOLS['open'])}, {lowered}"
        out.append(f"{speaker}: {text}")
    return out


def _turns(lines: str, owner: str, b: str, c: str, x: str) -> list[tuple[str, bool, bool]]:
    """(text, evidence, comes late) of a template's turns, for this owner and these friends."""
    out = []
    for part in (p.strip() for p in lines.split("|")):
        late = part.startswith("+")
        part = part.lstrip("+")
        evidence = part.startswith("*")
        part = part.lstrip("*")
        speaker = {"A": owner, "B": b, "C": c}[part[0]]
        text = part[2:].strip().replace("{A}", owner).replace("{X}", x)
        text = text[0].upper() + text[1:]
        out.append((f"{speaker}: {text}", evidence, late))
    return out


def chat(group_index: int, sessions: int = 26, seed: int = 1) -> tuple[list[dict], list[dict]]:
    """One group chat (memories as dicts, as in the JSONL file) and its questions."""
    rng = random.Random(f"group/{group_index}/{seed}")
    group = GROUPS[group_index % len(GROUPS)]
    blocks = [filler(rng, group, rng.randint(12, 40)) for _ in range(sessions)]
    questions: list[dict] = []
    plants: list[tuple[int, list[tuple[str, bool, bool]], int | None]] = []
    for kind, lines, question, answers, misses in TEMPLATES:
        for miss in misses.split("|"):
            for _ in range(2):
                plants.append((rng.randrange(sessions), [(f"{rng.choice(group)}: {miss}", False, False)], None))
        owners = rng.sample(group, 2)
        for owner, x in zip(owners, rng.sample(answers.split("|"), 2)):
            b, c = rng.sample([g for g in group if g != owner], 2)
            q = len(questions)
            questions.append({"id": f"g{group_index}-{q:03d}", "text": question.replace("{A}", owner),
                              "kind": kind, "answer": x, "evidence": []})
            if kind == "multi":
                head, _, tail = lines.partition("| ... |")
                first = rng.randrange(0, sessions // 2)
                plants.append((first, _turns(head, owner, b, c, x), q))
                plants.append((rng.randrange(first + sessions // 3, sessions), _turns(tail, owner, b, c, x), q))
            else:
                plants.append((rng.randrange(sessions), _turns(lines, owner, b, c, x), q))
    for session, turns, q in plants:
        block = blocks[session]
        at = rng.randrange(1, len(block))
        planted = []
        for text, evidence, late in turns:
            if late:  # others talk before this turn comes
                planted += [(t, False, None) for t in filler(rng, group, rng.randint(1, 3))]
            planted.append((text, evidence, q))
        block[at:at] = [planted]
    return as_rows(rng, blocks, questions, (1, 14)), questions
